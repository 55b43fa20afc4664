#pragma once
// The account master key, decoded. It is a credential with full control of
// the account: the type offers no way to print or read it back, and wipes
// its memory on destruction.
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace docshard {

class MasterKey {
public:
  // `base64Key` as shown in the portal. Throws InvalidArgumentError (without
  // echoing the input) when it is not valid base64.
  explicit MasterKey(std::string_view base64Key);
  ~MasterKey();
  MasterKey(MasterKey const&) = default;
  MasterKey& operator=(MasterKey const&) = default;
  MasterKey(MasterKey&&) noexcept = default;
  MasterKey& operator=(MasterKey&&) noexcept = default;

  // base64(HMAC-SHA256(key, message)).
  std::string Sign(std::string_view message) const;

  friend std::ostream& operator<<(std::ostream& os, MasterKey const&);

private:
  std::vector<unsigned char> m_key;
};

} // namespace docshard
