# SPDX-License-Identifier: BSD-3-Clause
# doc/local.mk: user documentation. `make doc` builds the Doxygen reference
# of the public headers and the Fortran module into doc/html (build tree);
# it is not part of all or check. The man pages of the tools are installed.
EXTRA_DIST += doc/Doxyfile.in doc/performance-notes.md
dist_doc_DATA = doc/user-guide.md doc/architecture.md doc/gpu.md doc/performance.md doc/bench-sweep.svg doc/bench-sweep.csv \
	doc/bench-scale.svg doc/bench-scale.csv
dist_man1_MANS = doc/dmesh-info.1 doc/dmesh-bench.1

if DMESH_HAVE_DOXYGEN
doc/Doxyfile: $(srcdir)/doc/Doxyfile.in Makefile
	$(AM_V_GEN)$(MKDIR_P) doc && sed \
	  -e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g' \
	  -e 's|@top_srcdir[@]|$(top_srcdir)|g' \
	  -e 's|@top_builddir[@]|$(top_builddir)|g' \
	  $(srcdir)/doc/Doxyfile.in > $@

doc: doc/Doxyfile
	$(AM_V_GEN)$(DOXYGEN) doc/Doxyfile
	@echo "dmesh reference: $(abs_top_builddir)/doc/html/index.html"
else
doc:
	@echo "make doc: doxygen was not found by configure" >&2; exit 1
endif
.PHONY: doc

CLEANFILES += doc/Doxyfile doc/doxygen.log
clean-local: clean-doc-html
clean-doc-html:
	-rm -rf doc/html
.PHONY: clean-doc-html
