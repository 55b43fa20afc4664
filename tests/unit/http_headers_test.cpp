// HttpHeaders keeps every name and value in one buffer: checked against a
// plain model (a vector of string pairs with the documented rules: Set
// replaces every value of a name and appends, Add appends, Remove drops every
// value, lookups ignore ASCII case), including values and names that view
// the headers' own storage while it grows, and removals that compact it.
#include <docshard/http/http_headers.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using docshard::http::HttpHeaders;

namespace {

// The model's own case-insensitive comparison (not HeaderNameEquals).
bool SameName(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) { return lower(x) == lower(y); });
}

struct Model {
  std::vector<std::pair<std::string, std::string>> Fields;

  void Remove(std::string_view name) {
    std::erase_if(Fields, [&](auto const& f) { return SameName(f.first, name); });
  }
  void Set(std::string name, std::string value) {
    Remove(name);
    Fields.emplace_back(std::move(name), std::move(value));
  }
  void Add(std::string name, std::string value) { Fields.emplace_back(std::move(name), std::move(value)); }
  std::optional<std::string> Get(std::string_view name) const {
    for (auto const& f : Fields)
      if (SameName(f.first, name)) return f.second;
    return std::nullopt;
  }
};

void RequireSame(HttpHeaders const& h, Model const& m, std::vector<std::string> const& names) {
  REQUIRE(h.Size() == m.Fields.size());
  auto const entries = h.Entries();
  REQUIRE(entries.size() == m.Fields.size());
  std::size_t i = 0;
  for (auto const& [name, value] : entries) {
    REQUIRE(name == m.Fields[i].first);
    REQUIRE(value == m.Fields[i].second);
    ++i;
  }
  for (auto const& n : names) {
    auto const expected = m.Get(n);
    auto const got = h.Get(n);
    REQUIRE(got.has_value() == expected.has_value());
    if (expected) REQUIRE(*got == *expected);
    REQUIRE(h.Contains(n) == expected.has_value());
  }
}

}  // namespace

TEST_CASE("http headers: random Set/Add/Remove sequences match the model", "[http][headers]") {
  std::vector<std::string> const names = {"x-ms-date",
                                          "X-MS-DATE",
                                          "authorization",
                                          "Accept",
                                          "x-ms-session-token",
                                          "X-Ms-Session-Token",
                                          "a",
                                          "A",
                                          "x-ms-documentdb-query-enablecrosspartition",
                                          "content-type",
                                          "etag"};
  std::mt19937 random(20261127);
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random); };
  auto value = [&] {
    // Empty, short (inline in a std::string) and long values.
    static constexpr std::size_t Lengths[] = {0, 1, 7, 15, 16, 40, 90, 300};
    auto const length = Lengths[pick(std::size(Lengths))];
    std::string v(length, 'v');
    for (auto& c : v) c = static_cast<char>('a' + pick(26));
    return v;
  };
  for (int round = 0; round < 40; ++round) {
    HttpHeaders h;
    Model m;
    if (round % 2 == 1) h.Reserve(pick(20), pick(2) == 0 ? 0 : pick(2000));
    for (int step = 0; step < 300; ++step) {
      auto const& name = names[pick(names.size())];
      switch (pick(6)) {
      case 0: {
        auto v = value();
        h.Set(name, v);
        m.Set(name, v);
        break;
      }
      case 1: {
        auto v = value();
        h.Add(name, v);
        m.Add(name, v);
        break;
      }
      case 2:
        h.Remove(name);
        m.Remove(name);
        break;
      case 3: {
        // A value viewed from these very headers, added while they may grow.
        if (h.Size() == 0) break;
        auto const v = h.Entries()[pick(h.Size())].second;
        std::string const expectedValue(v);
        h.Add(name, v);
        m.Add(name, expectedValue);
        break;
      }
      case 4: {
        // A name and value viewed from these headers, replacing that very field.
        if (h.Size() == 0) break;
        auto const [n, v] = h.Entries()[pick(h.Size())];
        std::string const expectedName(n), expectedValue(v);
        h.Set(n, v);
        m.Set(expectedName, expectedValue);
        break;
      }
      default: {
        // Many replacements of one long value: removed text piles up and is compacted.
        for (int k = 0; k < 20; ++k) {
          auto v = value();
          h.Set(name, v);
          m.Set(name, v);
        }
        break;
      }
      }
      RequireSame(h, m, names);
    }
    // Copies and moves are independent values.
    HttpHeaders copy = h;
    Model copyModel = m;
    copy.Set("x-copy", "only in the copy");
    copyModel.Set("x-copy", "only in the copy");
    RequireSame(h, m, names);
    RequireSame(copy, copyModel, names);
    HttpHeaders moved = std::move(copy);
    RequireSame(moved, copyModel, names);
  }
}

TEST_CASE("http headers: Entries is a random-access range in insertion order", "[http][headers]") {
  HttpHeaders h;
  CHECK(h.Entries().empty());
  CHECK(h.Entries().begin() == h.Entries().end());
  h.Add("one", "1");
  h.Add("Two", std::string(100, '2'));
  h.Add("three", "");
  h.Add("two", "again");
  auto const e = h.Entries();
  REQUIRE(e.size() == 4);
  CHECK(e.end() - e.begin() == 4);
  CHECK(std::distance(e.begin(), e.end()) == 4);
  CHECK(e[1].first == "Two");
  CHECK(e[1].second == std::string(100, '2'));
  CHECK(e.begin()[2].first == "three");
  CHECK(e.begin()[2].second.empty());
  auto it = e.end();
  --it;
  CHECK((*it).second == "again");
  CHECK(it > e.begin());
  CHECK((it - 3) == e.begin());
  auto const found = std::find_if(e.begin(), e.end(), [](auto const& f) { return f.second == "1"; });
  CHECK(found - e.begin() == 0);
  std::vector<std::string> reversed;
  for (auto r = std::make_reverse_iterator(e.end()); r != std::make_reverse_iterator(e.begin()); ++r)
    reversed.emplace_back((*r).first);
  CHECK(reversed == std::vector<std::string>{"two", "three", "Two", "one"});
  CHECK(h.Get("TWO") == std::string(100, '2'));  // the first value of a repeated name
  h.Set("two", "x");
  CHECK(h.Size() == 3);
  CHECK(h.Entries()[2].first == "two");
  CHECK(h.Get("Two") == "x");
}
