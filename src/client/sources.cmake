# The partition-aware client: routed CRUD and fan-out queries.
target_sources(docshard_client_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/aggregator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cosmos_value.cpp
  ${CMAKE_CURRENT_LIST_DIR}/exclusion_filter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fan_out_diagnostics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fan_out_executor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fan_out_token.cpp
  ${CMAKE_CURRENT_LIST_DIR}/merge_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/partitioned_client.cpp
  ${CMAKE_CURRENT_LIST_DIR}/provisional.cpp
  ${CMAKE_CURRENT_LIST_DIR}/query_info.cpp
  ${CMAKE_CURRENT_LIST_DIR}/query_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/query_plan_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resolver_publication.cpp
  ${CMAKE_CURRENT_LIST_DIR}/routed_diagnostics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tombstone.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transition_delete.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transition_replace.cpp
)
