/*
 * demangle: MSVC C++ decorated names as a person reads them.
 *
 * A WinError 127 names the export that is missing as the linker wrote it:
 * `?toScalarType@TypeMeta@caffe2@@QEBA?AW4ScalarType@c10@@XZ`. Reports show
 * it next to `public: enum c10::ScalarType __cdecl
 * caffe2::TypeMeta::toScalarType(void) const`. The demangler is LLVM's
 * (libLLVMDemangle, llvm::microsoftDemangle, from Debian's llvm-dev),
 * reached through a small C++ shim (demangle_llvm.cc); we never parse
 * decorated names ourselves. A build without it (the mingw cross-build)
 * returns NULL and the reports show the raw name alone.
 */
#ifndef TDC_DEMANGLE_H
#define TDC_DEMANGLE_H

/*
 * The readable form of an MSVC decorated name (one starting with '?'), or
 * NULL for a plain C name, a name the demangler rejects, one longer than
 * 4096 bytes, one whose demangling would take more than 1 MiB (back-
 * references can make a 122-byte name 87 MB of text: demangle_llvm.cc),
 * or a build without a demangler. Caller frees.
 */
char *demangle_msvc(const char *symbol);

/* Whether this build has a demangler (for reports that say why a name is raw). */
int demangle_available(void);

#endif
