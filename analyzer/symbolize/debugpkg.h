/*
 * debugpkg: the distribution package whose debug files would name the
 * functions of a binary without symbols (or without those of some of its
 * functions), for the report's footer.
 *
 * On Debian and its derivatives the package owning a file is asked of
 * dpkg (dpkg -S PATH), and its debug symbols are in PACKAGE-dbgsym (from
 * the debug archive, deb.debian.org/debian-debug). Elsewhere, or for a
 * file no package owns, there is no answer.
 */
#ifndef PROFANALYZE_DEBUGPKG_H
#define PROFANALYZE_DEBUGPKG_H

/* "PACKAGE-dbgsym" for the absolute path, or NULL (no dpkg, no owner).
 * Asks dpkg of the path, then of the file it resolves to when that
 * differs (a merged /usr's /lib, a library's soname link). A new string
 * the caller frees. */
char *debugpkg_for(const char *path);

#endif
