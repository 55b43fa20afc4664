#pragma once
// A cursor into a config document that knows its place (`resolver.ranges[2].low`),
// so every error names where it is. Loaders of user-defined resolver types
// get one too.
#include "docshard/core/collection_ref.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/core/json_value.hpp"
#include "docshard/core/key_type.hpp"
#include "docshard/core/partition_key.hpp"
#include "docshard/core/partition_key_path.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"

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
  // Where GetResolver() finds the loader of a nested resolver's `type`
  // (without one, GetResolver() throws ConfigError).
  ResolverRegistry const* Registry = nullptr;
  // nullopt: the config has no `accounts`, only the default account may be named.
  std::optional<std::set<std::string>> Accounts;
};

// A cursor into a config document at one place (see the notes at the top of
// this file). Every accessor checks the JSON type and range it needs and
// throws ConfigError naming Place() and what is wrong; nothing else throws
// but what a registered loader throws (GetResolver). Cheap to copy; valid
// while the document and the ConfigLoadContext it was made with live.
class DOCSHARD_API ConfigNode {
public:
  // A node for `value`, which sits at `place` (`resolver.ranges[2]`; "" for
  // the root) of a load sharing `context`.
  ConfigNode(JsonView value, std::string place, ConfigLoadContext const& context)
      : m_value(value), m_place(std::move(place)), m_context(&context) {}

  // The raw value, for checks the accessors below do not cover.
  JsonView Value() const noexcept { return m_value; }
  // Where the value is, e.g. `resolver.ranges[2].low`; "" for the root.
  std::string const& Place() const noexcept { return m_place; }
  // What the whole load shares.
  ConfigLoadContext const& Context() const noexcept { return *m_context; }

  // Throws ConfigError(Place(), detail).
  [[noreturn]] void Fail(std::string const& detail) const;
  // Throws ConfigError at Place(): `expected <expected>, got <value>`, e.g.
  // `expected a number, got "10"`.
  [[noreturn]] void FailType(std::string_view expected) const;

  // Throws unless the value is an object.
  void ExpectObject() const;
  // Rejects any member not in `allowed`, naming it (and a close spelling, if
  // any), and any member name given twice. Throws unless the value is an object.
  void AllowOnly(std::initializer_list<std::string_view> allowed) const;
  // Whether the object has member `name`. Throws unless the value is an object.
  bool Has(std::string_view name) const;
  // Member `name`, placed at Place() + "." + name. Throws when it is missing
  // (`missing required field "name"`) or the value is not an object.
  ConfigNode Child(std::string_view name) const;
  // Member `name`, or nullopt when it is missing. Throws unless the value is an object.
  std::optional<ConfigNode> OptionalChild(std::string_view name) const;

  // The elements of an array, placed at Place() + "[i]". Throws unless the
  // value is an array.
  std::vector<ConfigNode> Elements() const;
  // As Elements(), and an empty array is an error (`must not be empty`).
  std::vector<ConfigNode> NonEmptyElements() const;

  // A string; throws for another type or text that is not valid UTF-8.
  std::string GetString() const;
  // As GetString(), and "" is an error (`must not be empty`).
  std::string GetNonEmptyString() const;
  // An integral number (`5` or `5.0`) in [min, max]; throws for another type,
  // a fraction or a value out of range (naming the range).
  std::int64_t GetInteger(std::int64_t min, std::int64_t max) const;
  // Any number, as a double. Throws for another type.
  double GetNumber() const;
  // true or false. Throws for another type.
  bool GetBool() const;

  // A collection reference (`[account:]dbs/<db>/colls/<coll>`); throws for
  // text that is not one or names an account the config does not define.
  CollectionRef GetCollection() const;
  // A key of `type`: a string for KeyType::String, a number otherwise.
  // Throws for a value of the other type, NaN or infinity.
  PartitionKey GetKey(KeyType type) const;
  // A partitionKey: a path string, an array of paths (composite) or a
  // synthetic key object (docs/synthetic-keys.md). Throws naming the bad part.
  PartitionKeyPath GetKeyPath() const;
  // A nested resolver object, built by the loader Context().Registry has for
  // its `type`. Throws for an unknown type and what the loader throws.
  ResolverPtr GetResolver() const;

private:
  PartitionKeyPath GetSyntheticKeyPath() const;

  JsonView m_value;
  std::string m_place;
  ConfigLoadContext const* m_context;
};

// Short JSON text of a value for messages: scalars as JSON (truncated to 60
// characters), `an object` or `an array` for containers.
DOCSHARD_API std::string DescribeJson(JsonView value);

}  // namespace docshard
