// SchemeStore (a document) and FileSchemeStore: If-Match saves, where the
// later of two writers gets SchemeConflictError and nothing is overwritten;
// SchemeWatcher switches a running client to a newer epoch and never back.
#include "store_support.hpp"

#include <catch2/catch.hpp>

#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/store/scheme_store.hpp>
#include <docshard/store/scheme_watcher.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::resolvers;
using namespace docshard::store;
using namespace docshard::test;

namespace {
std::string HashJson(std::string const& db, int collections) {
  std::string list;
  for (int i = 0; i < collections; ++i)
    list += (i ? ", " : "") + std::string("\"dbs/") + db + "/colls/h" + std::to_string(i) + "\"";
  return R"({"type": "hash", "partitionKey": "/userId", "hash": "murmur3", "collections": [)" + list + "]}";
}

PartitionScheme Scheme(std::string const& db, int collections, std::int64_t epoch) {
  return PartitionScheme::Load(ConfigText(HashJson(db, collections), epoch));
}

// The two-writer contract, for any store; `other` is a second handle on the
// same stored scheme (another client or process).
void TwoWriters(ISchemeStore& store, ISchemeStore& other, std::string const& db) {
  CHECK_FALSE(store.Load());
  auto first = store.Create(Scheme(db, 2, 1));
  CHECK(first.Epoch == 1);
  CHECK_THROWS_AS(store.Create(Scheme(db, 3, 1)), SchemeConflictError);  // exists: nothing written
  auto loaded = store.Load();
  REQUIRE(loaded);
  CHECK(loaded->Text == first.Text);
  CHECK(loaded->ETag == first.ETag);
  CHECK(loaded->Parse().Resolver()->Collections().size() == 2);

  // Two writers load the same version; the first save wins.
  // (Checked before use: on an account whose replicas lag, another client may
  // not see the scheme yet, and the test must fail, not crash.)
  auto loadedA = store.Load();
  auto loadedB = other.Load();
  REQUIRE(loadedA);
  REQUIRE(loadedB);
  auto writerA = *loadedA;
  auto writerB = *loadedB;
  CHECK(writerB.ETag == writerA.ETag);
  auto savedA = store.Save(Scheme(db, 3, 2), writerA);
  CHECK(savedA.ETag != writerA.ETag);
  CHECK_THROWS_AS(other.Save(Scheme(db, 4, 2), writerB), SchemeConflictError);
  CHECK_THROWS_AS(other.Save(Scheme(db, 4, 3), writerB), SchemeConflictError);  // a higher epoch does not help
  auto now = store.Load();
  REQUIRE(now);
  CHECK(now->Epoch == 2);
  CHECK(now->Text == savedA.Text);  // B overwrote nothing
  CHECK(now->Parse().Resolver()->Collections().size() == 3);
  // B reloads and saves on top: fine.
  auto reloadedB = other.Load();
  REQUIRE(reloadedB);
  auto savedB = other.Save(Scheme(db, 4, 3), *reloadedB);
  auto afterB = store.Load();
  REQUIRE(afterB);
  CHECK(afterB->Text == savedB.Text);
  // Epochs only go up; a scheme without one is refused.
  CHECK_THROWS_AS(store.Save(Scheme(db, 4, 3), savedB), InvalidArgumentError);
  CHECK_THROWS_AS(store.Save(PartitionScheme::Load(R"({"docshard": 1, "resolver": )" + HashJson(db, 1) + "}"), savedB),
                  InvalidArgumentError);
  CHECK(store.Load()->Epoch == 3);
}
}  // namespace

TEST_CASE("scheme store in a document: If-Match, the loser gets a conflict", "[scheme]") {
  auto db = UniqueId("ss");
  auto cosmos = MakeCosmosClient();
  SchemeStore store(cosmos, "dbs/" + db + "/colls/schemes");
  store.CreateCollectionIfMissing();
  SchemeStore second(MakeCosmosClient(), "dbs/" + db + "/colls/schemes");  // its own connection pool
  TwoWriters(store, second, db);
  // The document is readable to people: epoch and text.
  auto const json =
      cosmos->ReadDocument("dbs/" + db + "/colls/schemes", "docshard-scheme", PartitionKeyValue("docshard-scheme"))
          .Json();
  JsonView const doc = json.View();
  CHECK(doc["epoch"].GetInt64() == 3);
  CHECK(PartitionScheme::Load(doc["scheme"].GetString()).Epoch() == 3);

  // A collection keyed on another field works too.
  SchemeStore other(cosmos, "dbs/" + db + "/colls/schemes2", SchemeStoreOptions{"orders-scheme", "/pk"});
  other.CreateCollectionIfMissing();
  SchemeStore otherSecond(MakeCosmosClient(), "dbs/" + db + "/colls/schemes2",
                          SchemeStoreOptions{"orders-scheme", "/pk"});
  TwoWriters(other, otherSecond, db);
  try {
    cosmos->DeleteDatabase(db);
  } catch (...) {}
}

TEST_CASE("scheme store in a file: If-Match on the content digest", "[scheme]") {
  auto path = std::filesystem::temp_directory_path() / (UniqueId("scheme") + ".json");
  FileSchemeStore store(path), second(path);
  TwoWriters(store, second, "filedb");
  // A concurrent writer process is simulated by changing the file behind the store's back.
  auto base = *store.Load();
  std::filesystem::path tmp = path;
  tmp += ".other";
  std::ofstream(tmp) << Scheme("filedb", 5, 9).Save();
  std::filesystem::rename(tmp, path);
  CHECK_THROWS_AS(store.Save(Scheme("filedb", 6, 10), base), SchemeConflictError);
  CHECK(store.Load()->Epoch == 9);
  std::filesystem::remove(path);
  std::filesystem::remove(path.string() + ".lock");
}

TEST_CASE("scheme watcher switches a running client to a newer epoch and never back", "[scheme]") {
  auto db = UniqueId("sw");
  auto cosmos = MakeCosmosClient();
  auto store = std::make_shared<SchemeStore>(cosmos, "dbs/" + db + "/colls/schemes");
  store->CreateCollectionIfMissing();
  auto v1 = store->Create(Scheme(db, 2, 1));

  auto client = MakeClient(HashJson(db, 2), 1);
  client->CreateCollectionsIfMissing();
  std::atomic<int> switches{0};
  std::atomic<std::int64_t> lastFrom{-1}, lastTo{-1};
  SchemeWatcherOptions options;
  options.Interval = std::chrono::milliseconds(50);
  options.OnSwitch = [&](SchemeSwitch const& s) {
    lastFrom = s.FromEpoch;
    lastTo = s.ToEpoch;
    ++switches;
  };
  std::atomic<int> errors{0};
  options.OnError = [&](std::exception_ptr) { ++errors; };
  SchemeWatcher watcher(store, client, options);
  watcher.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(switches == 0);  // same epoch: nothing to do
  CHECK(client->GetEpoch() == 1);

  // A migration publishes epoch 2 (three collections) into the store.
  auto next = Scheme(db, 3, 2);
  auto v2 = store->Save(next, v1);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (switches == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(switches == 1);
  CHECK(lastFrom == 1);
  CHECK(lastTo == 2);
  CHECK(client->GetEpoch() == 2);
  CHECK(client->GetResolver()->Collections().size() == 3);
  // The running client now routes by the new scheme.
  client->CreateCollectionsIfMissing();
  for (int i = 0; i < 50; ++i) {
    std::string user = "u" + std::to_string(i);
    auto r = client->CreateDocument("{\"id\":\"d" + std::to_string(i) + "\",\"userId\":\"" + user + "\"}");
    CHECK(r.Collection.Text() == next.Resolver()->ResolveForCreate(PartitionKey(user)).Text());
  }

  // An older epoch appearing in the store (a restored backup, a writer that
  // bypassed If-Match) is ignored: the client stays on epoch 2.
  RequestOptions ifMatch;
  ifMatch.IfMatchETag = v2.ETag;
  auto old = Scheme(db, 2, 1).Save();
  rapidjson::Document body(rapidjson::kObjectType);
  body.AddMember("id", "docshard-scheme", body.GetAllocator());
  body.AddMember("epoch", 1, body.GetAllocator());
  body.AddMember("scheme", rapidjson::Value(old.c_str(), body.GetAllocator()), body.GetAllocator());
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  body.Accept(writer);
  cosmos->ReplaceDocument("dbs/" + db + "/colls/schemes", "docshard-scheme", buffer.GetString(),
                          PartitionKeyValue("docshard-scheme"), ifMatch);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(store->Load()->Epoch == 1);
  CHECK_FALSE(watcher.PollNow());
  CHECK(switches == 1);
  CHECK(client->GetEpoch() == 2);
  CHECK(client->GetResolver()->Collections().size() == 3);
  watcher.Stop();
  CHECK(errors == 0);

  // A client that already runs a newer epoch (e.g. a spill published
  // locally) is not moved back by an older stored one.
  client->SetResolver("", next.Resolver(), 7);
  auto current = *store->Load();
  store->Save(Scheme(db, 4, 5), current);
  CHECK_FALSE(watcher.PollNow());
  CHECK(client->GetEpoch() == 7);
  store->Save(Scheme(db, 4, 8), *store->Load());
  CHECK(watcher.PollNow());
  CHECK(client->GetEpoch() == 8);
  CHECK(client->GetResolver()->Collections().size() == 4);
  try {
    cosmos->DeleteDatabase(db);
  } catch (...) {}
}
