#pragma once
// Writing a file so that readers see the old or the new content, never a torn
// one, and the new content survives a crash once the call returns.
#include "docshard/export.hpp"

#include <filesystem>
#include <string>

namespace docshard {

// Writes `text` to `path` atomically: a temporary file beside it
// (named after it, plus ".tmp." and the process id), fsync, rename over `path`, fsync of the directory.
// Throws std::system_error naming the step and the file (creating, writing,
// fsync, closing, renaming); the temporary file is removed on failure.
DOCSHARD_API void WriteFileAtomically(std::filesystem::path const& path, std::string const& text);

}  // namespace docshard
