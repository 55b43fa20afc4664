#include "docshard/core/logging.hpp"

#include "core/json_string.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <vector>

namespace docshard {

std::string_view ToString(LogLevel level) noexcept {
  switch (level) {
  case LogLevel::Error: return "error";
  case LogLevel::Warning: return "warn";
  case LogLevel::Informational: return "info";
  case LogLevel::Verbose: return "debug";
  }
  return "debug";
}

std::optional<LogLevel> ParseLogLevel(std::string_view text) noexcept {
  for (auto level : {LogLevel::Error, LogLevel::Warning, LogLevel::Informational, LogLevel::Verbose})
    if (text == ToString(level)) return level;
  return std::nullopt;
}

std::string LogRecord::FieldsJson() const {
  std::string out = "{";
  for (auto const& f : Fields) {
    if (out.size() > 1) out += ',';
    detail::AppendJsonString(out, f.Name);
    out += ':';
    if (f.IsNumber) {
      out += std::to_string(f.Number);
    } else if (f.IsReal) {
      detail::AppendJsonNumber(out, f.Real);
    } else {
      detail::AppendJsonString(out, f.Text);
    }
  }
  out += '}';
  return out;
}

void Logger::Write(LogLevel level, std::string_view category, std::string_view message,
                   std::initializer_list<LogField> fields) const noexcept {
  if (!Enabled(level)) return;
  try {
    m_sink->Write(LogRecord{level, category, message, std::span<LogField const>(fields.begin(), fields.size())});
  } catch (...) {
    // A sink must not throw; if one does, the operation it reports on goes on.
  }
}

namespace {

std::mutex& DefaultMutex() {
  static std::mutex m;
  return m;
}

Logger& DefaultSlot() {
  static Logger logger;
  return logger;
}

class StderrLogSink final : public ILogSink {
public:
  void Write(LogRecord const& record) noexcept override {
    try {
      auto const now = std::chrono::system_clock::now();
      auto const seconds = std::chrono::system_clock::to_time_t(now);
      auto const millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
      std::tm utc{};
      gmtime_r(&seconds, &utc);
      char stamp[64];
      std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                    utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(millis));
      std::string line = stamp;
      line += ' ';
      line += ToString(record.Level);
      line += ' ';
      line += record.Category;
      line += ' ';
      // One line per record, whatever the message holds.
      for (char c : record.Message) line += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
      if (!record.Fields.empty()) {
        line += ' ';
        line += record.FieldsJson();
      }
      line += '\n';
      std::lock_guard lock(m_mutex);  // whole lines, never interleaved
      std::fwrite(line.data(), 1, line.size(), stderr);
    } catch (...) {}
  }

private:
  std::mutex m_mutex;
};

}  // namespace

void SetDefaultLogger(Logger logger) {
  std::lock_guard lock(DefaultMutex());
  DefaultSlot() = std::move(logger);
}

Logger DefaultLogger() {
  std::lock_guard lock(DefaultMutex());
  return DefaultSlot();
}

std::shared_ptr<ILogSink> MakeStderrLogSink() { return std::make_shared<StderrLogSink>(); }

}  // namespace docshard
