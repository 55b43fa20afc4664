#pragma once
// DOCSHARD_API marks what the library exports. Everything else is hidden
// (the library is built with -fvisibility=hidden), so a shared libdocshard
// exports only its public API: applications cannot come to depend on
// internals, the dynamic symbol table stays small, and calls inside the
// library need no PLT indirection. In a static build the mark is harmless.
// Every class (including every exception type, whose type information must be
// visible for `catch` to work across the library boundary) and every function
// declared in include/docshard carries it.
#if defined(__GNUC__) || defined(__clang__)
#define DOCSHARD_API __attribute__((visibility("default")))
#else
#define DOCSHARD_API
#endif
