#pragma once
// The resolver types docshard ships (hash, range, lookup, transition,
// spillover, managedHash) and the registry that knows them. The registry is
// core; the resolvers layer registers its types into it explicitly, so
// nothing depends on static initialisation (which a static link may drop).
#include "docshard/core/resolver_registry.hpp"
#include "docshard/export.hpp"

namespace docshard::resolvers {

// Registers every built-in type in `registry`. Throws InvalidArgumentError
// when one of their names is already registered there.
DOCSHARD_API void RegisterBuiltInResolvers(ResolverRegistry& registry);

// The process-wide registry used when none is given: the built-in types,
// registered on first use, plus whatever the application registers in it.
DOCSHARD_API ResolverRegistry& DefaultResolverRegistry();

}  // namespace docshard::resolvers
