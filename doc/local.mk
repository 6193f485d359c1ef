# SPDX-License-Identifier: BSD-3-Clause
# doc/local.mk: user documentation. `make doc` builds the Doxygen reference
# of the public headers and the Fortran module into doc/html (build tree);
# it is not part of all or check. `make dist` puts it into the tarball when
# doxygen is present then (configure's, else the one on PATH), so that an
# installation from the tarball has it without doxygen (doc/man.mk). The man
# pages of the tools are installed.
EXTRA_DIST += doc/Doxyfile.in doc/performance-notes.md
dist_doc_DATA += doc/user-guide.md doc/architecture.md doc/gpu.md doc/performance.md doc/bench-sweep.svg doc/bench-sweep.csv \
	doc/bench-scale.svg doc/bench-scale.csv
dist_man1_MANS = doc/dmesh-info.1 doc/dmesh-bench.1

doc/Doxyfile: $(srcdir)/doc/Doxyfile.in Makefile
	$(AM_V_GEN)$(MKDIR_P) doc && sed \
	  -e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g' \
	  -e 's|@top_srcdir[@]|$(top_srcdir)|g' \
	  -e 's|@top_builddir[@]|$(top_builddir)|g' \
	  $(srcdir)/doc/Doxyfile.in > $@

if DMESH_HAVE_DOXYGEN
doc: doc/Doxyfile
	$(AM_V_GEN)$(DOXYGEN) doc/Doxyfile
	@echo "dmesh reference: $(abs_top_builddir)/doc/html/index.html"
else
doc:
	@echo "make doc: doxygen was not found by configure" >&2; exit 1
endif
.PHONY: doc

# The tarball's doc/html: made now when doxygen is here, else the one of the
# sources (a tarball made from a tarball), else none (with a warning).
dist-hook: dist-doc-html
dist-doc-html: doc/Doxyfile
	@doxygen='$(DOXYGEN)'; test -n "$$doxygen" || doxygen=`command -v doxygen 2>/dev/null`; \
	if test -n "$$doxygen"; then \
	  $$doxygen doc/Doxyfile && rm -rf '$(distdir)/doc/html' && cp -R doc/html '$(distdir)/doc/html'; \
	elif test -f '$(srcdir)/doc/html/index.html'; then \
	  rm -rf '$(distdir)/doc/html' && cp -R '$(srcdir)/doc/html' '$(distdir)/doc/html'; \
	else \
	  echo "dmesh: no doxygen: the tarball has no HTML reference" >&2; \
	fi; \
	if test -d '$(distdir)/doc/html'; then chmod -R u+w '$(distdir)/doc/html'; fi
.PHONY: dist-doc-html

CLEANFILES += doc/Doxyfile doc/doxygen.log
clean-local: clean-doc-html
clean-doc-html:
	-rm -rf doc/html
.PHONY: clean-doc-html
