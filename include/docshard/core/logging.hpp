#pragma once
// Logging: a sink the application plugs its own logger into. Off by default
// (no sink: every log call is one branch). docshard logs what an operator
// needs without a debugger: throttling and retries (warn / info), requests
// (debug), partition key range reads, scheme switches. A record never holds a
// key, a signature, an authorization header or a document body.
//
// Each client takes the logger of its options (CosmosClientOptions::Log), or,
// when that is unset, the process default at the client's construction
// (SetDefaultLogger; the CLI's --log-level sets it).
#include "docshard/export.hpp"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace docshard {

// Most to least severe; a logger at level L passes records at L and above.
enum class LogLevel { Error = 0, Warning = 1, Informational = 2, Verbose = 3 };

// "error", "warn", "info", "debug" (the CLI's names).
DOCSHARD_API std::string_view ToString(LogLevel level) noexcept;
// The inverse of ToString; nullopt for anything else.
DOCSHARD_API std::optional<LogLevel> ParseLogLevel(std::string_view text) noexcept;

// One structured field of a record: a name and either a string or a number.
struct DOCSHARD_API LogField {
  // A string field; `name` and `text` must outlive the Write call.
  LogField(std::string_view name, std::string_view text) : Name(name), Text(text) {}
  // An integer field (any integral type but bool).
  template <typename T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) LogField(std::string_view name, T number)
      : Name(name), Number(static_cast<std::int64_t>(number)), IsNumber(true) {}
  // A floating-point field (written as null when not finite).
  LogField(std::string_view name, double number) : Name(name), Real(number), IsReal(true) {}

  std::string_view Name;    // the field's name, e.g. "status"
  std::string_view Text;    // the value of a string field
  std::int64_t Number = 0;  // the value of an integer field
  double Real = 0;          // the value of a floating-point field
  bool IsNumber = false;    // an integer field
  bool IsReal = false;      // a floating-point field
};

// One record handed to a sink. Its views are valid only during the Write call.
struct DOCSHARD_API LogRecord {
  LogLevel Level = LogLevel::Informational;  // how severe
  std::string_view Category;                 // e.g. "cosmos.retry", "cosmos.request", "cosmos.ranges", "store.watcher"
  std::string_view Message;                  // what happened, e.g. "retrying"
  std::span<LogField const> Fields;          // the structured details

  // The fields as one JSON object ({} when there are none).
  std::string FieldsJson() const;
};

// Receives records from any thread, possibly at once: implementations must be
// thread-safe and must not throw (an exception is swallowed) or call back
// into docshard.
class DOCSHARD_API ILogSink {
public:
  virtual ~ILogSink() = default;
  // Takes one record (copy what it keeps: the record's views end with the call).
  virtual void Write(LogRecord const& record) noexcept = 0;
};

// A sink and the least severe level it wants. Cheap to copy; empty (no sink)
// logs nothing.
class DOCSHARD_API Logger {
public:
  Logger() = default;
  // Records at `level` and more severe go to `sink` (null: nothing is logged).
  Logger(std::shared_ptr<ILogSink> sink, LogLevel level) : m_sink(std::move(sink)), m_level(level) {}

  // Whether a record at `level` would be written: check before building costly fields.
  bool Enabled(LogLevel level) const noexcept { return m_sink && level <= m_level; }
  // The least severe level written.
  LogLevel Level() const noexcept { return m_level; }

  // Writes the record if Enabled(level).
  void Write(LogLevel level, std::string_view category, std::string_view message,
             std::initializer_list<LogField> fields = {}) const noexcept;

private:
  std::shared_ptr<ILogSink> m_sink;
  LogLevel m_level = LogLevel::Warning;
};

// The process default for clients whose options set no logger. Thread-safe;
// clients built before a change keep the logger they were built with.
DOCSHARD_API void SetDefaultLogger(Logger logger);
DOCSHARD_API Logger DefaultLogger();  // the process default (SetDefaultLogger)

// A sink writing one line per record to stderr:
//   2026-11-26T13:20:00.123Z warn cosmos.retry retrying after 429 {"status":429,...}
DOCSHARD_API std::shared_ptr<ILogSink> MakeStderrLogSink();

}  // namespace docshard
