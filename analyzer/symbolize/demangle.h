/*
 * demangle: C++ symbol names in the form their source spells them.
 *
 * The work is done by __cxa_demangle, the demangler of the C++ runtime
 * (GCC's libstdc++, and LLVM's libc++abi, export it under this name with
 * C linkage): it follows the Itanium C++ ABI as the compilers that
 * produce the names do, including GCC's clone suffixes ("[clone .cold]").
 */
#ifndef PROFANALYZE_DEMANGLE_H
#define PROFANALYZE_DEMANGLE_H

/* The demangled form of name as a new string the caller frees, or NULL
 * when name is not a mangled C++ name (or not one the runtime knows). */
char *
demangle_name(const char *name);

#endif
