#pragma once
// JSON text for the tool's output. Every string the tool prints goes through
// here, so output stays valid JSON whatever bytes the input held.
#include <cstdint>
#include <string>
#include <string_view>

namespace docshard::cli {

// Appends `text` as a quoted JSON string: quotes, backslashes and control
// characters escaped, well-formed UTF-8 passed through as is, and each byte
// of an invalid UTF-8 sequence replaced by U+FFFD.
void AppendJsonString(std::string& out, std::string_view text);
std::string JsonString(std::string_view text);

// A double as JSON: shortest round-trip text; non-finite values as null.
std::string JsonNumber(double value);

// Text for XML character data and attribute values.
std::string XmlEscape(std::string_view text);

// One line for stderr: newlines and other control characters become spaces.
std::string OneLine(std::string_view text);

}  // namespace docshard::cli
