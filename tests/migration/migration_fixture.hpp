#pragma once
// Two schemes (A, B) over a fresh database on the fixture's two accounts,
// documents seeded through a PartitionedClient on A, and an independent
// count of the documents whose owner differs between A and B (the ideal
// number of moves). Roles a and b are strict gateways with several partition
// key ranges and lagging replicas (tests/servers.conf); la and lb are lenient
// servers with one range.
#include "test_server.hpp"

#include <docshard/client/partitioned_client.hpp>
#include <docshard/docshard.hpp>
#include <docshard/migration/migrator.hpp>
#include <docshard/rapidjson_interop.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace docshard::test {

struct SeededDocument {
  std::string Id;
  PartitionKey Key;
  std::string Json;
};

// The fixture's servers behind the scheme's accounts "default" and "b".
struct Roles {
  std::string Default = "a";
  std::string B = "b";

  std::string Of(CollectionRef const& c) const { return c.Account() == "b" ? B : Default; }
};

inline std::string AccountsJson(Roles const& roles = {}) {
  return "{\n    \"default\": " + AccountJson(roles.Default) + ",\n    \"b\": " + AccountJson(roles.B) + "\n  }";
}

// How far the server's secondary replicas may lag (its --replica-lag-ms).
inline std::chrono::milliseconds ReplicaLag(std::string const& role) {
  auto state = ServerControl(role).Call("GET", "/_docshard/state");
  if (!state.HasMember("gateway") || !state["gateway"].HasMember("replicaLagMs")) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(state["gateway"]["replicaLagMs"].GetInt64());
}

// Splits the partition key range holding the most documents of each
// collection (on the server its account names; collections the server does
// not list yet, or empty ones, are left alone); the number of splits.
inline int SplitFullestRanges(std::vector<CollectionRef> const& collections, Roles const& roles = {}) {
  int splits = 0;
  for (auto const& c : collections) {
    ServerControl control(roles.Of(c));
    std::map<std::string, int> perRange;
    try {
      perRange = control.RangeDocuments(c.Link());
    } catch (std::runtime_error const&) {
      continue;  // the gateway lists a collection from its first request on: none yet, nothing to split
    }
    auto fullest = std::max_element(perRange.begin(), perRange.end(),
                                    [](auto const& a, auto const& b) { return a.second < b.second; });
    if (fullest == perRange.end() || fullest->second == 0) continue;
    if (control.Split(c.Link(), fullest->first).size() == 2) ++splits;
  }
  return splits;
}

inline std::string Substitute(std::string text, std::string const& database) {
  for (std::size_t pos; (pos = text.find("{DB}")) != std::string::npos;) text.replace(pos, 4, database);
  return text;
}

inline std::string TempDir() {
  char const* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

struct MigrationFixture {
  std::string Database = UniqueId("mig");
  std::string TextA, TextB;
  resolvers::PartitionScheme A, B;
  std::shared_ptr<client::PartitionedClient> ClientA;
  std::vector<SeededDocument> Seeded;
  Roles Servers;

  // Resolver JSON may use {DB} for the database name.
  MigrationFixture(std::string const& resolverA, std::string const& resolverB, Roles roles = {})
      : TextA(Config(resolverA, 1, roles)), TextB(Config(resolverB, 1, roles)),
        A(resolvers::PartitionScheme::Load(TextA)), B(resolvers::PartitionScheme::Load(TextB)),
        Servers(std::move(roles)) {
    client::PartitionedClientOptions options;
    options.Client = ClientOptions(Servers.Default);
    ClientA = client::PartitionedClient::FromScheme(A, options);
    ClientA->CreateCollectionsIfMissing();
  }

  std::string Config(std::string const& resolver, int epoch, Roles const& roles) const {
    return "{\n  \"docshard\": 1,\n  \"epoch\": " + std::to_string(epoch) +
           ",\n  \"accounts\": " + AccountsJson(roles) + ",\n  \"resolver\": " + Substitute(resolver, Database) +
           "\n}\n";
  }

  std::string WriteFile(std::string const& name, std::string const& text) const {
    auto const path = TempDir() + "/" + Database + "-" + name;
    std::ofstream(path) << text;
    return path;
  }

  // A client for the migration: transition(A, B), both accounts.
  std::shared_ptr<client::PartitionedClient>
  TransitionClient(TransitionReadMode mode = TransitionReadMode::ReadNextThenCurrent) const {
    client::PartitionedClientOptions options;
    options.Client = ClientOptions(Servers.Default);
    return client::PartitionedClient::FromScheme(migration::Migrator::TransitionScheme(A, B, mode), options);
  }

  // Creates documents through A, `threads` at a time. Returns once every
  // replica has them: another client (the migrator's) reads them then
  // without holding this client's session tokens.
  void Seed(std::vector<SeededDocument> documents, int threads = 8) {
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> workers;
    std::atomic<int> failures{0};
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&] {
        for (std::size_t i; (i = next++) < documents.size();) {
          try {
            ClientA->CreateDocument(documents[i].Json);
          } catch (...) {
            ++failures;
          }
        }
      });
    for (auto& w : workers) w.join();
    if (failures) throw std::runtime_error("seeding failed for " + std::to_string(failures.load()) + " documents");
    for (auto& d : documents) Seeded.push_back(std::move(d));
    std::this_thread::sleep_for(std::max(ReplicaLag(Servers.Default), ReplicaLag(Servers.B)));
  }

  // Independently of the migrator: how many seeded documents A and B place
  // in different collections.
  std::uint64_t IdealMoves() const {
    std::uint64_t n = 0;
    for (auto const& d : Seeded) {
      rapidjson::Document doc;
      doc.Parse(d.Json.c_str());
      auto const& a = A.Resolver()->ResolveForCreate(doc);
      auto const& b = B.Resolver()->ResolveForCreate(doc);
      if (a.Account() != b.Account() || a.Link() != b.Link()) ++n;
    }
    return n;
  }

  std::map<std::string, PartitionKey> Expected() const {
    std::map<std::string, PartitionKey> out;
    for (auto const& d : Seeded) out.insert_or_assign(d.Id, d.Key);
    return out;
  }

  ~MigrationFixture() {
    // Files this fixture wrote: configs, checkpoints, logs (kept only on failure would be nicer;
    // the CLI's log tail is already printed by the failing check).
    std::error_code ec;
    for (auto const& e : std::filesystem::directory_iterator(TempDir(), ec))
      if (e.path().filename().string().rfind(Database + "-", 0) == 0) std::filesystem::remove(e.path(), ec);
    try {
      std::set<std::pair<std::string, std::string>> dbs;
      for (auto const& c : A.Resolver()->Collections()) dbs.emplace(c.Account(), c.Database());
      for (auto const& c : B.Resolver()->Collections()) dbs.emplace(c.Account(), c.Database());
      auto client = TransitionClient();
      for (auto const& [account, db] : dbs) client->Account(account).DeleteDatabase(db);
    } catch (...) {}
  }
};

inline SeededDocument UserDocument(std::string const& id, std::string const& user, long n) {
  return {id, PartitionKey(user),
          "{\"id\":\"" + id + "\",\"userId\":\"" + user + "\",\"n\":" + std::to_string(n) + "}"};
}

inline SeededDocument TenantDocument(std::string const& id, std::string const& tenant, std::string const& user,
                                     long n) {
  return {id, PartitionKey(tenant),
          "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"userId\":\"" + user +
              "\",\"n\":" + std::to_string(n) + "}"};
}

}  // namespace docshard::test
