#pragma once
// The account master key, decoded. It is a credential with full control of
// the account: the type offers no way to print or read it back, and wipes
// its memory on destruction.
#include "docshard/export.hpp"
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace docshard {

class DOCSHARD_API MasterKey {
public:
  // `base64Key` as shown in the portal. Throws InvalidArgumentError (without
  // echoing the input) when it is not valid base64.
  explicit MasterKey(std::string_view base64Key);
  ~MasterKey();
  MasterKey(MasterKey const&) = default;
  MasterKey& operator=(MasterKey const&) = default;
  MasterKey(MasterKey&&) noexcept = default;
  MasterKey& operator=(MasterKey&&) noexcept = default;

  // base64(HMAC-SHA256(key, message)). Thread-safe.
  std::string Sign(std::string_view message) const;

  friend std::ostream& operator<<(std::ostream& os, MasterKey const&);

private:
  // An HMAC-SHA256 context already keyed, never used directly: each Sign
  // duplicates it. Keying (and OpenSSL 3's algorithm fetch) once instead of
  // per request is most of the signing cost. The decoded key lives only in
  // here (OpenSSL wipes it when the context is freed); copies of a MasterKey
  // share it.
  struct KeyedMac;
  std::shared_ptr<KeyedMac const> m_mac;
};

}  // namespace docshard
