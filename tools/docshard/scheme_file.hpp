#pragma once
// Reading a config file for a command. Errors are ConfigErrors naming the
// place, which main prints as one line `error: <place>: <detail>`.
#include <docshard/resolvers/partition_scheme.hpp>

#include <string>

namespace docshard::cli {

// Throws ConfigError; an unreadable file is named by its path.
resolvers::PartitionScheme LoadSchemeFile(std::string const& path);

}  // namespace docshard::cli
