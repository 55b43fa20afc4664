#pragma once
// A cursor into a config document that knows its place (`resolver.ranges[2].low`),
// so every error names where it is. Loaders of user-defined resolver types
// get one too.
#include "docshard/collection_ref.hpp"
#include "docshard/errors.hpp"
#include "docshard/export.hpp"
#include "docshard/key_type.hpp"
#include "docshard/partition_key.hpp"
#include "docshard/partition_key_path.hpp"
#include "docshard/partition_resolver.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace docshard {

class ResolverRegistry;

// What a whole config load shares: which accounts exist and which registry to use.
struct DOCSHARD_API ConfigLoadContext {
  ResolverRegistry const* Registry = nullptr;
  // nullopt: the config has no `accounts`, only the default account may be named.
  std::optional<std::set<std::string>> Accounts;
};

class DOCSHARD_API ConfigNode {
public:
  ConfigNode(rapidjson::Value const& value, std::string place, ConfigLoadContext const& context)
      : m_value(&value), m_place(std::move(place)), m_context(&context) {}

  rapidjson::Value const& Value() const noexcept { return *m_value; }
  std::string const& Place() const noexcept { return m_place; }
  ConfigLoadContext const& Context() const noexcept { return *m_context; }

  [[noreturn]] void Fail(std::string const& detail) const;
  // `expected a number, got "10"`
  [[noreturn]] void FailType(std::string_view expected) const;

  // Objects
  void ExpectObject() const;
  // Rejects any member not in `allowed`, naming it (and a close spelling, if any).
  void AllowOnly(std::initializer_list<std::string_view> allowed) const;
  bool Has(std::string_view name) const;
  ConfigNode Child(std::string_view name) const;  // required
  std::optional<ConfigNode> OptionalChild(std::string_view name) const;

  // Arrays
  std::vector<ConfigNode> Elements() const;
  std::vector<ConfigNode> NonEmptyElements() const;

  // Scalars
  std::string GetString() const;
  std::string GetNonEmptyString() const;
  std::int64_t GetInteger(std::int64_t min, std::int64_t max) const;
  double GetNumber() const;
  bool GetBool() const;

  // Domain values
  CollectionRef GetCollection() const;      // also checks the account exists
  PartitionKey GetKey(KeyType type) const;  // a key of the given type
  PartitionKeyPath GetKeyPath() const;      // a path or an array of paths
  ResolverPtr GetResolver() const;          // a nested resolver object, via the registry

private:
  PartitionKeyPath GetSyntheticKeyPath() const;

  rapidjson::Value const* m_value;
  std::string m_place;
  ConfigLoadContext const* m_context;
};

// Short JSON text of a value for messages, truncated.
DOCSHARD_API std::string DescribeJson(rapidjson::Value const& value);

}  // namespace docshard
