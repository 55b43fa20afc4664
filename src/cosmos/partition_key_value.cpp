#include <docshard/cosmos/partition_key_value.hpp>

#include <docshard/errors.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

namespace docshard {

namespace {

template <typename Fill>
std::string WrapInArray(Fill&& fill)
{
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartArray();
  fill(writer);
  writer.EndArray();
  return std::string(buffer.GetString(), buffer.GetSize());
}

} // namespace

PartitionKeyValue::PartitionKeyValue(std::string_view value)
    : m_header(WrapInArray([&](auto& w) { w.String(value.data(), static_cast<rapidjson::SizeType>(value.size())); }))
{
}

PartitionKeyValue::PartitionKeyValue(double value)
{
  if (!std::isfinite(value))
    throw InvalidArgumentError("partition key number must be finite");
  m_header = WrapInArray([&](auto& w) { w.Double(value); });
}

PartitionKeyValue::PartitionKeyValue(std::int64_t value)
    : m_header(WrapInArray([&](auto& w) { w.Int64(value); }))
{
}

PartitionKeyValue::PartitionKeyValue(bool value)
    : m_header(WrapInArray([&](auto& w) { w.Bool(value); }))
{
}

PartitionKeyValue PartitionKeyValue::FromJson(std::string_view json)
{
  rapidjson::Document doc;
  // Iterative: deep nesting is rejected below (only scalars are kept), not a stack overflow.
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError())
    throw InvalidArgumentError("partition key is not valid JSON");
  auto scalar = [](rapidjson::Value const& v) { return v.IsString() || v.IsNumber() || v.IsBool(); };
  PartitionKeyValue pk;
  if (scalar(doc)) {
    pk.m_header = WrapInArray([&](auto& w) { doc.Accept(w); });
    return pk;
  }
  if (doc.IsArray() && !doc.Empty()) {
    for (auto const& v : doc.GetArray())
      if (!scalar(v))
        throw InvalidArgumentError("partition key array elements must be strings, numbers or booleans");
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    doc.Accept(writer);
    pk.m_header.assign(buffer.GetString(), buffer.GetSize());
    return pk;
  }
  throw InvalidArgumentError("partition key must be a string, number, boolean or a non-empty array of those");
}

} // namespace docshard
