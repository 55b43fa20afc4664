# HTTPS transport. send_operation.cpp and connection.cpp are the networking
# translation units (one request's state machine; opening a connection);
# response_parser.cpp holds the parser settings it shares with the fuzz seam.
target_sources(docshard_http_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/connection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/connection_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/endpoint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/exchange_override.cpp
  ${CMAKE_CURRENT_LIST_DIR}/http_date.cpp
  ${CMAKE_CURRENT_LIST_DIR}/http_headers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/http_transport.cpp
  ${CMAKE_CURRENT_LIST_DIR}/request_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/response_parser.cpp
  ${CMAKE_CURRENT_LIST_DIR}/send_operation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/socket_bio.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tls_context.cpp)
