#pragma once
// A whole config file (docs/config.md): format version, epoch, accounts and the
// top resolver. Loading is all-or-nothing; saving is stable byte-for-byte.
// Part of the resolvers layer: by default it loads with the built-in types.
#include "docshard/core/partition_resolver.hpp"
#include "docshard/core/resolver_registry.hpp"
#include "docshard/export.hpp"
#include "docshard/resolvers/builtin_resolvers.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docshard::resolvers {

// Where an account lives and where its key comes from. Never the key itself.
struct DOCSHARD_API AccountConfig {
  std::string Endpoint;  // https://host[:port]
  std::string KeyEnv;    // name of an environment variable holding the key
  std::string KeyFile;   // path of a file holding the key
  std::string CaFile;    // an extra trusted CA (PEM) for this account
  // Multi-region accounts: the regions to read from, in order of preference
  // (CosmosClientOptions::PreferredRegions). Empty: the endpoint only.
  std::vector<std::string> PreferredRegions;
};

// A loaded scheme: the resolver tree, its epoch and its accounts. Immutable;
// a new scheme is a new object (PartitionedClient and SchemeWatcher swap them).
class DOCSHARD_API PartitionScheme {
public:
  // The `docshard` format version this library reads and writes; Load rejects
  // any other.
  static constexpr int FormatVersion = 1;

  // Throws ConfigError naming the place of the first problem.
  static PartitionScheme Load(std::string_view json, ResolverRegistry const& registry = DefaultResolverRegistry());
  // Load() of a file's contents. Throws ConfigError whose place is the path
  // when the file cannot be opened or read, else as Load().
  static PartitionScheme LoadFile(std::filesystem::path const& path,
                                  ResolverRegistry const& registry = DefaultResolverRegistry());
  // A scheme built in code. Throws InvalidArgumentError for a null `resolver`
  // or a negative epoch. Save() checks that `accounts` covers the collections.
  PartitionScheme(ResolverPtr resolver, std::optional<std::int64_t> epoch = std::nullopt,
                  std::map<std::string, AccountConfig> accounts = {});

  // Pretty JSON, two-space indent, fixed member order, trailing newline.
  // Throws InvalidArgumentError, writing nothing, when a collection names an
  // account the scheme does not describe (Load would refuse the file).
  std::string Save() const;

  // The top resolver; never null.
  ResolverPtr const& Resolver() const noexcept { return m_resolver; }
  // The scheme's `epoch`, raised by one by each migration; none when unset.
  std::optional<std::int64_t> Epoch() const noexcept { return m_epoch; }
  // The accounts by name ("default" for unprefixed collections).
  std::map<std::string, AccountConfig> const& Accounts() const noexcept { return m_accounts; }

private:
  ResolverPtr m_resolver;
  std::optional<std::int64_t> m_epoch;
  std::map<std::string, AccountConfig> m_accounts;
};

// Pretty, stable JSON text of any resolver (two-space indent, trailing newline).
DOCSHARD_API std::string SaveResolverJson(IPartitionResolver const& resolver);

}  // namespace docshard::resolvers
