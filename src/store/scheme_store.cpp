#include "docshard/store/scheme_store.hpp"

#include "docshard/core/atomic_file.hpp"
#include "docshard/core/md5_hash_generator.hpp"

#include "cosmos/response_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace docshard::store {

namespace {
std::int64_t RequireEpoch(resolvers::PartitionScheme const& scheme) {
  if (!scheme.Epoch())
    throw InvalidArgumentError("a stored scheme needs an \"epoch\": watchers switch to a higher epoch only");
  return *scheme.Epoch();
}

void RequireNewer(std::int64_t epoch, StoredScheme const& basedOn) {
  if (epoch <= basedOn.Epoch)
    throw InvalidArgumentError("scheme epoch " + std::to_string(epoch) + " does not go up from the stored epoch " +
                               std::to_string(basedOn.Epoch));
}

// The "epoch" member of a config text, without loading its resolvers.
std::int64_t EpochOf(std::string const& text) {
  rapidjson::Document doc;
  // Iterative: the text comes from the store, and nothing here walks it
  // deeper than the top level (loading it bounds its depth).
  doc.Parse<rapidjson::kParseIterativeFlag>(text.c_str(), text.size());
  if (!doc.HasParseError() && doc.IsObject()) {
    auto it = doc.FindMember("epoch");
    if (it != doc.MemberEnd() && it->value.IsInt64()) return it->value.GetInt64();
  }
  return 0;
}

std::string Hex(RingPosition v) {
  static char const digits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 31; i >= 0; --i, v >>= 4) out[static_cast<std::size_t>(i)] = digits[static_cast<unsigned>(v & 0xf)];
  return out;
}

std::optional<std::string> ReadFile(std::filesystem::path const& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// An exclusive advisory lock on `<path>.lock` for one compare-and-replace.
class FileLock {
public:
  explicit FileLock(std::filesystem::path const& path) {
    auto lockPath = path;
    lockPath += ".lock";
    m_fd = ::open(lockPath.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (m_fd < 0) throw InvalidArgumentError("cannot open " + lockPath.string());
    if (::flock(m_fd, LOCK_EX) != 0) {
      ::close(m_fd);
      throw InvalidArgumentError("cannot lock " + lockPath.string());
    }
  }
  ~FileLock() { ::close(m_fd); }  // closing releases the lock
  FileLock(FileLock const&) = delete;
  FileLock& operator=(FileLock const&) = delete;

private:
  int m_fd = -1;
};
}  // namespace

// --- SchemeStore (a document) -------------------------------------------------

SchemeStore::SchemeStore(std::shared_ptr<cosmos::CosmosClient> client, std::string const& collectionLink,
                         SchemeStoreOptions options)
    : m_client(std::move(client)), m_options(std::move(options)) {
  if (!m_client) throw InvalidArgumentError("SchemeStore: no client");
  auto ref = CollectionRef::Parse(collectionLink);  // validates the link
  if (ref.HasExplicitAccount()) throw InvalidArgumentError("SchemeStore: pass the account's client and a plain link");
  m_link = ref.Link();
  m_database = ref.Database();
  m_collection = ref.Collection();
  auto const& pk = m_options.PartitionKeyPath;
  if (pk.size() < 2 || pk[0] != '/' || pk.find('/', 1) != std::string::npos)
    throw InvalidArgumentError("SchemeStore: the partition key path must be a top-level field such as /id, got \"" +
                               pk + "\"");
  if (m_options.DocumentId.empty()) throw InvalidArgumentError("SchemeStore: empty document id");
}

void SchemeStore::CreateCollectionIfMissing() {
  m_client->CreateDatabaseIfNotExists(m_database);
  m_client->CreateCollectionIfNotExists(m_database, m_collection, m_options.PartitionKeyPath);
}

std::string SchemeStore::DocumentJson(std::string const& text, std::int64_t epoch) const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("id");
  w.String(m_options.DocumentId.c_str(), static_cast<rapidjson::SizeType>(m_options.DocumentId.size()));
  if (m_options.PartitionKeyPath != "/id") {
    auto field = m_options.PartitionKeyPath.substr(1);
    w.Key(field.c_str(), static_cast<rapidjson::SizeType>(field.size()));
    w.String(m_options.DocumentId.c_str(), static_cast<rapidjson::SizeType>(m_options.DocumentId.size()));
  }
  w.Key("epoch");
  w.Int64(epoch);
  w.Key("scheme");
  w.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::optional<StoredScheme> SchemeStore::Load() const {
  cosmos::CosmosResponse response;
  try {
    response = m_client->ReadDocument(m_link, m_options.DocumentId, cosmos::PartitionKeyValue(m_options.DocumentId));
  } catch (cosmos::NotFoundError const&) {
    return std::nullopt;
  }
  auto doc = cosmos::detail::ParseBody(response);
  auto scheme = doc.FindMember("scheme");
  if (scheme == doc.MemberEnd() || !scheme->value.IsString())
    throw InvalidArgumentError("scheme document " + m_link + "/docs/" + m_options.DocumentId +
                               " has no \"scheme\" text");
  StoredScheme stored;
  stored.Text.assign(scheme->value.GetString(), scheme->value.GetStringLength());
  stored.Epoch = EpochOf(stored.Text);  // the text is the truth; the member is for people and queries
  auto etag = doc.FindMember("_etag");
  stored.ETag =
      etag != doc.MemberEnd() && etag->value.IsString() ? std::string(etag->value.GetString()) : response.ETag();
  return stored;
}

StoredScheme SchemeStore::Create(resolvers::PartitionScheme const& scheme) {
  auto epoch = RequireEpoch(scheme);
  StoredScheme stored{scheme.Save(), epoch, {}};
  try {
    auto response = m_client->CreateDocument(m_link, DocumentJson(stored.Text, epoch),
                                             cosmos::PartitionKeyValue(m_options.DocumentId));
    stored.ETag = response.ETag();
  } catch (cosmos::ConflictError const&) {
    throw SchemeConflictError("a scheme already exists in " + m_link + " (document \"" + m_options.DocumentId +
                              "\"): load it and save based on it");
  }
  return stored;
}

StoredScheme SchemeStore::Save(resolvers::PartitionScheme const& scheme, StoredScheme const& basedOn) {
  auto epoch = RequireEpoch(scheme);
  RequireNewer(epoch, basedOn);
  if (basedOn.ETag.empty()) throw InvalidArgumentError("SchemeStore::Save: the base version has no ETag");
  StoredScheme stored{scheme.Save(), epoch, {}};
  cosmos::RequestOptions options;
  options.IfMatchETag = basedOn.ETag;
  try {
    auto response = m_client->ReplaceDocument(m_link, m_options.DocumentId, DocumentJson(stored.Text, epoch),
                                              cosmos::PartitionKeyValue(m_options.DocumentId), options);
    stored.ETag = response.ETag();
  } catch (cosmos::PreconditionFailedError const&) {
    throw SchemeConflictError("the scheme in " + m_link + " changed since epoch " + std::to_string(basedOn.Epoch) +
                              " was loaded; nothing was saved: reload and save again");
  } catch (cosmos::NotFoundError const&) {
    throw SchemeConflictError("the scheme document in " + m_link + " was deleted; nothing was saved");
  }
  return stored;
}

// --- FileSchemeStore ----------------------------------------------------------

FileSchemeStore::FileSchemeStore(std::filesystem::path path) : m_path(std::move(path)) {
  if (m_path.empty()) throw InvalidArgumentError("FileSchemeStore: empty path");
}

std::optional<StoredScheme> FileSchemeStore::Load() const {
  auto text = ReadFile(m_path);
  if (!text) return std::nullopt;
  StoredScheme stored;
  stored.Epoch = EpochOf(*text);
  stored.ETag = Hex(Md5HashGenerator().Hash(*text));
  stored.Text = std::move(*text);
  return stored;
}

StoredScheme FileSchemeStore::Create(resolvers::PartitionScheme const& scheme) {
  auto epoch = RequireEpoch(scheme);
  FileLock lock(m_path);
  if (std::filesystem::exists(m_path))
    throw SchemeConflictError("a scheme already exists in " + m_path.string() + ": load it and save based on it");
  StoredScheme stored{scheme.Save(), epoch, {}};
  WriteFileAtomically(m_path, stored.Text);
  stored.ETag = Hex(Md5HashGenerator().Hash(stored.Text));
  return stored;
}

StoredScheme FileSchemeStore::Save(resolvers::PartitionScheme const& scheme, StoredScheme const& basedOn) {
  auto epoch = RequireEpoch(scheme);
  RequireNewer(epoch, basedOn);
  FileLock lock(m_path);
  auto current = Load();
  if (!current || current->ETag != basedOn.ETag)
    throw SchemeConflictError("the scheme in " + m_path.string() + " changed since epoch " +
                              std::to_string(basedOn.Epoch) + " was loaded; nothing was saved: reload and save again");
  StoredScheme stored{scheme.Save(), epoch, {}};
  WriteFileAtomically(m_path, stored.Text);
  stored.ETag = Hex(Md5HashGenerator().Hash(stored.Text));
  return stored;
}

}  // namespace docshard::store
