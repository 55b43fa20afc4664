# Cosmos DB REST client. cosmos_client.cpp and partition_key_range_cache.cpp
# hold the Asio coroutine code; the rest is plain C++.
target_sources(docshard_cosmos_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/collection_routing_map.cpp
  ${CMAKE_CURRENT_LIST_DIR}/consistency_level.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cosmos_client.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cosmos_requests.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cosmos_response.cpp
  ${CMAKE_CURRENT_LIST_DIR}/database_account.cpp
  ${CMAKE_CURRENT_LIST_DIR}/master_key.cpp
  ${CMAKE_CURRENT_LIST_DIR}/master_key_authorization.cpp
  ${CMAKE_CURRENT_LIST_DIR}/operation_metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/partition_key_range_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/partition_key_value.cpp
  ${CMAKE_CURRENT_LIST_DIR}/percent_encoding.cpp
  ${CMAKE_CURRENT_LIST_DIR}/query_page.cpp
  ${CMAKE_CURRENT_LIST_DIR}/range_stream.cpp
  ${CMAKE_CURRENT_LIST_DIR}/region_router.cpp
  ${CMAKE_CURRENT_LIST_DIR}/request_failed_error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resource_path.cpp
  ${CMAKE_CURRENT_LIST_DIR}/retry_policy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/session_container.cpp
  ${CMAKE_CURRENT_LIST_DIR}/session_token.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sql_query.cpp)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 pairs Asio's coroutine-frame operator delete with the wrong new
  # (a known false positive for asio::awaitable frames).
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/cosmos_client.cpp
                              ${CMAKE_CURRENT_LIST_DIR}/partition_key_range_cache.cpp
                              PROPERTIES COMPILE_OPTIONS -Wno-mismatched-new-delete)
endif()
