#include <docshard/cosmos/master_key.hpp>

#include <docshard/errors.hpp>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <ostream>

namespace docshard {

namespace {

std::vector<unsigned char> DecodeBase64(std::string_view text)
{
  // Whitespace sneaks in when keys are pasted from a terminal or a file.
  std::string clean;
  clean.reserve(text.size());
  for (char c : text)
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
      clean.push_back(c);
  if (clean.empty() || clean.size() % 4 != 0)
    throw InvalidArgumentError("master key is not valid base64");
  std::vector<unsigned char> out(clean.size() / 4 * 3);
  int n = EVP_DecodeBlock(out.data(), reinterpret_cast<unsigned char const*>(clean.data()),
                          static_cast<int>(clean.size()));
  OPENSSL_cleanse(clean.data(), clean.size());
  if (n < 0) {
    OPENSSL_cleanse(out.data(), out.size());
    throw InvalidArgumentError("master key is not valid base64");
  }
  // EVP_DecodeBlock counts padding as zero bytes.
  std::size_t pad = 0;
  for (auto it = text.rbegin(); it != text.rend() && (*it == '=' || *it == '\n' || *it == ' '); ++it)
    pad += *it == '=';
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

} // namespace

MasterKey::MasterKey(std::string_view base64Key) : m_key(DecodeBase64(base64Key))
{
  if (m_key.empty())
    throw InvalidArgumentError("master key is empty");
}

MasterKey::~MasterKey()
{
  if (!m_key.empty())
    OPENSSL_cleanse(m_key.data(), m_key.size());
}

std::string MasterKey::Sign(std::string_view message) const
{
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int macLength = 0;
  if (HMAC(EVP_sha256(), m_key.data(), static_cast<int>(m_key.size()),
           reinterpret_cast<unsigned char const*>(message.data()), message.size(), mac, &macLength)
      == nullptr)
    throw Error(ErrorCode::Internal, "HMAC-SHA256 failed");
  std::string out(4 * ((macLength + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), mac, static_cast<int>(macLength));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::ostream& operator<<(std::ostream& os, MasterKey const&)
{
  return os << "MasterKey(redacted)";
}

} // namespace docshard
