# SPDX-License-Identifier: BSD-3-Clause
# doc/man.mk: man3 pages for every exported function of the public headers
# and the dmesh(7) overview, made by doc/mkman.sh (awk, no doxygen) into
# doc/man in the build tree and installed into man3 and man7; and the
# Doxygen HTML reference, installed into $(docdir)/html: built when
# configure found doxygen (make doc builds it alone), else the copy a
# release tarball carries; with neither it is skipped.
dmesh_man_headers = $(srcdir)/include/dmesh.h $(srcdir)/include/dmesh_layout.h \
	$(srcdir)/include/dmesh_nccl.h
EXTRA_DIST += doc/mkman.sh doc/mkman.awk doc/dmesh.7.in
noinst_DATA = doc/man/stamp
doc/man/stamp: $(srcdir)/doc/mkman.sh $(srcdir)/doc/mkman.awk $(srcdir)/doc/dmesh.7.in \
		$(dmesh_man_headers)
	$(AM_V_GEN)$(SHELL) $(srcdir)/doc/mkman.sh $(srcdir) doc/man $(PACKAGE_VERSION) \
	  $(dmesh_man_headers) && touch $@

install-data-local: install-man-pages install-doc-html
install-man-pages: doc/man/stamp
	$(MKDIR_P) '$(DESTDIR)$(mandir)/man3' '$(DESTDIR)$(mandir)/man7'
	$(INSTALL_DATA) doc/man/man3/*.3 '$(DESTDIR)$(mandir)/man3'
	$(INSTALL_DATA) doc/man/man7/dmesh.7 '$(DESTDIR)$(mandir)/man7'
uninstall-local: uninstall-man-pages uninstall-doc-html
uninstall-man-pages: doc/man/stamp
	for f in doc/man/man3/*.3; do rm -f "$(DESTDIR)$(mandir)/man3/$${f##*/}"; done
	rm -f '$(DESTDIR)$(mandir)/man7/dmesh.7'

# The HTML reference: built here when configure found doxygen, else the one
# the release tarball carries (doc/local.mk, dist-doc-html), else none.
if DMESH_HAVE_DOXYGEN
dmesh_html_deps = doc
endif
install-doc-html: $(dmesh_html_deps)
	@if test -f doc/html/index.html; then html=doc/html; \
	elif test -f '$(srcdir)/doc/html/index.html'; then html='$(srcdir)/doc/html'; \
	else echo "dmesh: no doxygen and no HTML reference in the sources: not installed"; exit 0; fi; \
	echo "installing the HTML reference from $$html"; \
	$(MKDIR_P) '$(DESTDIR)$(docdir)/html' && cp -R "$$html/." '$(DESTDIR)$(docdir)/html' && \
	  chmod -R u+w '$(DESTDIR)$(docdir)/html'
uninstall-doc-html:
	rm -rf '$(DESTDIR)$(docdir)/html'

clean-local: clean-man-pages
clean-man-pages:
	-rm -rf doc/man doc/man.tmp
.PHONY: install-man-pages uninstall-man-pages install-doc-html uninstall-doc-html clean-man-pages
