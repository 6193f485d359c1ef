# SPDX-License-Identifier: BSD-3-Clause
# mkman.awk: man3 pages from the Doxygen comments of dmesh's public headers.
# Usage: awk -v outdir=DIR -v version=X.Y.Z -f mkman.awk HEADER...
# For each "DMESH_EXPORT ... name(...);" declaration, the comment block just
# before it gives the page: \brief -> NAME, the declaration -> SYNOPSIS, the
# rest of the text -> DESCRIPTION, \param -> ARGUMENTS, \return -> RETURN
# VALUE, \note -> NOTES; the enclosing \name group's text is added to NOTES.
# A name met twice (a header re-declaring another's function) gets one page.
# Prints the names it wrote, one per line.

function trim(s) { sub(/^[ \t\n]+/, "", s); sub(/[ \t\n]+$/, "", s); return s }

# Doxygen and Markdown markup to roff.
function roff(s,    out, w) {
    gsub(/\\/, "\\e", s)
    while (match(s, /\\ep [A-Za-z_0-9]+/)) {
        w = substr(s, RSTART + 4, RLENGTH - 4)
        s = substr(s, 1, RSTART - 1) "\\fI" w "\\fP" substr(s, RSTART + RLENGTH)
    }
    while (match(s, /`[^`]*`/)) {
        w = substr(s, RSTART + 1, RLENGTH - 2)
        s = substr(s, 1, RSTART - 1) "\\fB" w "\\fP" substr(s, RSTART + RLENGTH)
    }
    while (match(s, /\*[A-Za-z][^*\n]*\*/)) {
        w = substr(s, RSTART + 1, RLENGTH - 2)
        s = substr(s, 1, RSTART - 1) "\\fI" w "\\fP" substr(s, RSTART + RLENGTH)
    }
    gsub(/\\ecode|\\eendcode|\\eref /, "", s)
    gsub(/[ \t]+/, " ", s)
    gsub(/\n[ \t]+/, "\n", s)
    gsub(/\n\n+/, "\n.PP\n", s)
    gsub(/\n/, " ", s)
    gsub(/ \.PP /, "\n.PP\n", s)
    gsub(/(^|\n)\./, "&", s)
    return trim(s)
}

# Split the comment text into its parts (global arrays).
function parse(text,    rest, cmd, pos, body, name, dir) {
    brief = ""; desc = ""; ret = ""; note = ""; nparams = 0
    rest = text
    cmd = "desc"
    while (1) {
        pos = match(rest, /\\(brief|param(\[[a-z,]+\])?|return|returns|note|details)[ \t\n]/)
        body = pos ? substr(rest, 1, RSTART - 1) : rest
        if (cmd == "brief") brief = brief " " body
        else if (cmd == "desc") desc = desc " " body
        else if (cmd == "return") ret = ret " " body
        else if (cmd == "note") note = note (note != "" ? "\n\n" : "") body
        else if (cmd ~ /^param/) {
            body = trim(body)
            name = body; sub(/[ \t\n].*/, "", name)
            dir = cmd; sub(/^param\[?/, "", dir); sub(/\]$/, "", dir)
            pname[++nparams] = name
            pdir[nparams] = dir
            ptext[nparams] = trim(substr(body, length(name) + 1))
        }
        if (!pos) break
        cmd = substr(rest, RSTART + 1, RLENGTH - 2)
        if (cmd == "details") cmd = "desc"
        if (cmd == "returns") cmd = "return"
        rest = substr(rest, RSTART + RLENGTH)
    }
    # A brief ends at its first blank line; more text is description.
    if (match(brief, /\n[ \t]*\n/)) {
        desc = substr(brief, RSTART) " " desc
        brief = substr(brief, 1, RSTART - 1)
    }
}

function page(name, decl, header,    f, i, upper) {
    parse(doc)
    f = outdir "/" name ".3"
    upper = toupper(name)
    printf ".\\\" Generated from %s by doc/mkman.awk; do not edit.\n", header > f
    printf ".TH %s 3 \"\" \"dmesh %s\" \"dmesh manual\"\n", upper, version > f
    printf ".SH NAME\n%s \\- %s\n", name, roff(trim(brief)) > f
    printf ".SH SYNOPSIS\n.nf\n.B #include <%s>\n.PP\n", header > f
    gsub(/\\/, "\\e", decl)
    gsub(/\n[ \t]+/, "\n    ", decl)
    printf "%s\n.fi\n", decl > f
    printf ".SH DESCRIPTION\n%s\n", roff(trim(desc) != "" ? desc : brief) > f
    if (nparams > 0) {
        printf ".SH ARGUMENTS\n" > f
        for (i = 1; i <= nparams; i++)
            printf ".TP\n.I %s\n%s%s\n", pname[i], pdir[i] != "" ? "(" pdir[i] ") " : "",
                roff(ptext[i]) > f
    }
    if (trim(ret) != "") printf ".SH RETURN VALUE\n%s\n", roff(ret) > f
    if (trim(note) != "" || group_text != "") {
        printf ".SH NOTES\n" > f
        if (trim(note) != "") printf "%s\n.PP\n", roff(note) > f
        if (group_text != "") printf "%s: %s\n", roff(group_name), roff(group_text) > f
    }
    printf ".SH SEE ALSO\n.BR dmesh (7),\n.BR dmesh_error_string (3),\n.BR dmesh_last_error (3)\n" > f
    close(f)
    print name
}

FNR == 1 { header = FILENAME; sub(/.*\//, "", header); sub(/\.in$/, "", header); incomment = 0 }

incomment {
    line = $0
    done = sub(/\*\/.*$/, "", line)
    sub(/^[ \t]*\*[ \t]?/, "", line)
    text = text "\n" line
    if (done) {
        incomment = 0
        if (text ~ /\\name[ \t]/) {
            group_name = text; sub(/^.*\\name[ \t]+/, "", group_name); sub(/\n.*/, "", group_name)
            group_text = text; sub(/^.*\\name[^\n]*\n/, "", group_text); sub(/@\{.*/, "", group_text)
            group_text = trim(group_text)
        } else if (text !~ /@\}/) {
            doc = text
        }
    }
    next
}

/^[ \t]*\/\*\*/ {
    line = $0
    sub(/^[ \t]*\/\*\*[ \t]?/, "", line)
    text = ""
    if (sub(/\*\/.*$/, "", line)) {
        text = line
        if (text ~ /\\name[ \t]/) {
            group_name = text; sub(/^.*\\name[ \t]+/, "", group_name); sub(/[ \t]*@\{.*/, "", group_name)
            group_text = ""
        } else if (text !~ /@\}/) {
            doc = text
        }
    } else {
        incomment = 1
        text = line
    }
    next
}

/^DMESH_EXPORT/ { indecl = 1; decl = "" }
indecl {
    decl = decl (decl != "" ? "\n" : "") $0
    if ($0 ~ /;/) {
        indecl = 0
        sub(/^DMESH_EXPORT[ \t]+/, "", decl)
        name = decl
        sub(/[ \t]*\(.*/, "", name)
        sub(/.*[ \t*]/, "", name)
        if (!(name in seen)) {
            seen[name] = 1
            page(name, decl, header)
        }
        doc = ""
    }
}
