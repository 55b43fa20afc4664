#pragma once
// The account master key, decoded. It is a credential with full control of
// the account: the type offers no way to print or read it back, and wipes
// its memory on destruction.
#include "docshard/export.hpp"
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace docshard::cosmos {

// A decoded master key that signs requests (see the notes at the top of this
// file). Copies share the signing state; thread-safe.
class DOCSHARD_API MasterKey {
public:
  // `base64Key` as shown in the portal. Throws InvalidArgumentError (without
  // echoing the input) when it is not valid base64.
  explicit MasterKey(std::string_view base64Key);
  ~MasterKey();
  MasterKey(MasterKey const&) = default;                 // shares the key
  MasterKey& operator=(MasterKey const&) = default;      // shares the key
  MasterKey(MasterKey&&) noexcept = default;             // leaves the source empty: only assign or destroy it
  MasterKey& operator=(MasterKey&&) noexcept = default;  // leaves the source empty: only assign or destroy it

  // base64(HMAC-SHA256(key, message)). Thread-safe.
  std::string Sign(std::string_view message) const;

  // Writes "MasterKey(redacted)", never the key: a key in a log line stays
  // secret.
  friend std::ostream& operator<<(std::ostream& os, MasterKey const&);

private:
  // The key's HMAC-SHA256 inner and outer hash states, computed once: each
  // Sign hashes only its message. The decoded key is not kept; these states
  // (as good as it for signing) are wiped when the last copy of the
  // MasterKey, which shares them, goes.
  struct KeyedMac;
  std::shared_ptr<KeyedMac const> m_mac;
};

}  // namespace docshard::cosmos
