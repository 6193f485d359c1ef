# packaging/local.mk: the licence and release files, and the packaging for
# other build systems (CMake package, Spack recipe).
dist_doc_DATA += LICENSE NEWS CONTRIBUTING.md
