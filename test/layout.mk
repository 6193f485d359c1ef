# test/layout.mk: rules of this part of the tree (included by Makefile.am).
