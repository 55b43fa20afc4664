# CTest fixtures of local servers (tests/README.md).
#
# docshard_server_fixture(NAME <fixture> ROLES <role>...
#                         [SETTINGS <row>] [GATEWAY strict|lenient] [PARTITIONS N]
#                         [REPLICA_LAG_MS MS] [SPLIT_AFTER_DOCS N]
#                         [ROLE_ARGS <role> "<options>" ...])
#   Adds the CTest tests <fixture>_servers_start and <fixture>_servers_stop, the setup and
#   cleanup of fixture docshard_<fixture>_servers: one scripts/cosmos-server.sh instance per
#   role, named <fixture>-<hash of the build dir>-<role> (engineers share a run dir), started
#   in parallel by tests/support/servers.sh. Settings: the row SETTINGS (default <fixture>,
#   else "default") of tests/servers.conf, overridden by GATEWAY, PARTITIONS,
#   REPLICA_LAG_MS and SPLIT_AFTER_DOCS, overridden for one role by its ROLE_ARGS
#   (any cosmos-server.sh start options, e.g. untrusted "--cert-set untrusted").
#
# docshard_servers_required(<fixture> TESTS <test>... [ENVIRONMENT <VAR=value>...])
#   The tests need the fixture's servers: FIXTURES_REQUIRED, and the environment
#   tests/support/test_server.hpp reads (DOCSHARD_TEST_PREFIX, DOCSHARD_SERVER_KEY,
#   DOCSHARD_SOURCE_DIR) plus ENVIRONMENT. Both are appended to what the tests have.

# A throwaway key for servers bound to loopback (fixed, so that a restarted server
# accepts the same client); never a real Cosmos key.
set(DOCSHARD_TEST_SERVER_KEY "ZG9jc2hhcmQtdGVzdC1zZXJ2ZXJzLWtleS1ub3QtYS1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZg==")
set(DOCSHARD_TEST_SERVERS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/servers.sh)

function(docshard_server_fixture)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;SETTINGS;GATEWAY;PARTITIONS;REPLICA_LAG_MS;SPLIT_AFTER_DOCS"
                        "ROLES;ROLE_ARGS")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_NAME OR NOT arg_ROLES)
    message(FATAL_ERROR "docshard_server_fixture: NAME and ROLES are required (unexpected: ${arg_UNPARSED_ARGUMENTS})")
  endif()
  if(NOT arg_NAME MATCHES "^[a-z][a-z0-9-]*$")
    message(FATAL_ERROR "docshard_server_fixture: bad NAME '${arg_NAME}' (lower-case letters, digits, -)")
  endif()
  if(NOT arg_SETTINGS)
    set(arg_SETTINGS ${arg_NAME})
  endif()
  set(options "")
  if(DEFINED arg_GATEWAY)
    if(NOT arg_GATEWAY MATCHES "^(strict|lenient)$")
      message(FATAL_ERROR "docshard_server_fixture(${arg_NAME}): GATEWAY must be strict or lenient")
    endif()
    list(APPEND options --gateway ${arg_GATEWAY})
  endif()
  foreach(setting PARTITIONS REPLICA_LAG_MS SPLIT_AFTER_DOCS)
    if(DEFINED arg_${setting})
      if(NOT arg_${setting} MATCHES "^[0-9]+$")
        message(FATAL_ERROR "docshard_server_fixture(${arg_NAME}): ${setting} must be a number")
      endif()
      string(TOLOWER "--${setting}" flag)
      string(REPLACE "_" "-" flag "${flag}")
      list(APPEND options ${flag} ${arg_${setting}})
    endif()
  endforeach()

  # role -> "role:options" for the roles that have options of their own.
  set(roles ${arg_ROLES})
  list(LENGTH arg_ROLE_ARGS n)
  math(EXPR odd "${n} % 2")
  if(odd)
    message(FATAL_ERROR "docshard_server_fixture(${arg_NAME}): ROLE_ARGS takes pairs: <role> \"<options>\"")
  endif()
  while(arg_ROLE_ARGS)
    list(POP_FRONT arg_ROLE_ARGS role role_options)
    list(FIND roles ${role} i)
    if(i EQUAL -1)
      message(FATAL_ERROR "docshard_server_fixture(${arg_NAME}): ROLE_ARGS names '${role}', which is not in ROLES")
    endif()
    list(REMOVE_AT roles ${i})
    list(INSERT roles ${i} "${role}:${role_options}")
  endwhile()

  string(MD5 hash "${CMAKE_BINARY_DIR}")
  string(SUBSTRING "${hash}" 0 8 hash)
  set(prefix "${arg_NAME}-${hash}")
  set(env "DOCSHARD_TEST_PREFIX=${prefix}" "DOCSHARD_SERVER_KEY=${DOCSHARD_TEST_SERVER_KEY}"
          "DOCSHARD_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  set_property(GLOBAL PROPERTY DOCSHARD_SERVERS_ENV_${arg_NAME} "${env}")

  add_test(NAME ${arg_NAME}_servers_start
           COMMAND ${DOCSHARD_TEST_SERVERS_SCRIPT} start --prefix ${prefix} --settings ${arg_SETTINGS} ${options}
                   -- ${roles})
  add_test(NAME ${arg_NAME}_servers_stop COMMAND ${DOCSHARD_TEST_SERVERS_SCRIPT} stop --prefix ${prefix} -- ${arg_ROLES})
  set_tests_properties(${arg_NAME}_servers_start PROPERTIES FIXTURES_SETUP docshard_${arg_NAME}_servers
                       ENVIRONMENT "${env}" TIMEOUT 180)
  set_tests_properties(${arg_NAME}_servers_stop PROPERTIES FIXTURES_CLEANUP docshard_${arg_NAME}_servers
                       ENVIRONMENT "${env}" TIMEOUT 60)
endfunction()

function(docshard_servers_required fixture)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "TESTS;ENVIRONMENT")
  get_property(env GLOBAL PROPERTY DOCSHARD_SERVERS_ENV_${fixture})
  if(NOT env)
    message(FATAL_ERROR "docshard_servers_required: no fixture '${fixture}' (docshard_server_fixture first)")
  endif()
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_TESTS)
    message(FATAL_ERROR "docshard_servers_required(${fixture}): TESTS <test>... is required")
  endif()
  set_property(TEST ${arg_TESTS} APPEND PROPERTY FIXTURES_REQUIRED docshard_${fixture}_servers)
  set_property(TEST ${arg_TESTS} APPEND PROPERTY ENVIRONMENT ${env} ${arg_ENVIRONMENT})
endfunction()
