#pragma once
// The md5 ring's public vectors (docs/resolvers.md, "Public vectors", from the
// legacy SDKs' own tests), shared by the resolver test and the test of every
// md5 chain implementation, so both check the same published answers.
#include <string_view>

namespace docshard::test {

// A key and the collection the legacy SDKs place it in.
struct RouteVector {
  std::string_view Key;
  std::string_view Collection;
};

// md5, two collections dbs/db/colls/coll0 and coll1, 5 virtual nodes each.
inline constexpr RouteVector Md5TwoCollectionsV5[] = {{"beadledom", "dbs/db/colls/coll1"},
                                                      {"999", "dbs/db/colls/coll0"},
                                                      {"a", "dbs/db/colls/coll1"},
                                                      {"", "dbs/db/colls/coll0"}};

// md5, dbs/foo/colls/A, B and C, 128 virtual nodes each (the default).
inline constexpr RouteVector Md5AbcV128[] = {{"a", "dbs/foo/colls/A"},
                                             {"x", "dbs/foo/colls/C"},
                                             {"J1", "dbs/foo/colls/A"},
                                             {"U4", "dbs/foo/colls/C"},
                                             {"", "dbs/foo/colls/A"}};

}  // namespace docshard::test
