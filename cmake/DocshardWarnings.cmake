# Warnings for every target this project defines (library, tools, tests,
# samples, benchmarks, fuzz targets), and -Werror with DOCSHARD_WERROR.
#
# DOCSHARD_WERROR defaults to ON for a top-level build with the compilers CI
# checks the tree with (g++ 12, clang 14): a developer sees a new warning as
# an error at once instead of in CI. Anywhere else (a packager's newer
# compiler, docshard as a subdirectory of another project, vcpkg) it defaults
# to OFF, so a warning a future compiler adds cannot break someone's build.
# scripts/test.sh and scripts/sanitize.sh turn it ON explicitly.
set(_docshard_werror_default OFF)
if(PROJECT_IS_TOP_LEVEL)
  if((CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
      AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
     OR (CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 14
      AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 15))
    set(_docshard_werror_default ON)
  endif()
endif()
option(DOCSHARD_WERROR "Treat compiler warnings as errors" ${_docshard_werror_default})

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  # The same three flags mean the same families on g++ and clang; clang's
  # -Wextra also brings -Wunused-parameter, -Wsign-compare and friends.
  add_compile_options(-Wall -Wextra -Wpedantic)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # RapidJSON 1.1.0 (Debian's) declares its iterators' == and != with the
    # other constness as the parameter type, so C++20's reversed candidates
    # tie for two mutable iterators: clang warns at every `it != v.MemberEnd()`
    # in our code (~20 places) although the choice is right and unique.
    # Fixed in RapidJSON after 1.1.0; our own operators are not affected.
    add_compile_options(-Wno-ambiguous-reversed-operator)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # g++ 12 at -O3 (Release) reports a bogus -Wrestrict inside libstdc++'s
    # string code for `"literal" + std::string(...)` (a known GCC 12 false
    # positive; overlapping copies of "9223372036854775810 or more bytes"):
    # with -Werror every Release build of the library, the CLI and the
    # benchmarks failed, in a dozen files, while -O2 builds were clean.
    add_compile_options(-Wno-restrict)
  endif()
  if(DOCSHARD_WERROR)
    add_compile_options(-Werror)
  endif()
endif()
