#ifndef ACCORD_CPOSTGRES_SHIM_H
#define ACCORD_CPOSTGRES_SHIM_H
#include <libpq-fe.h>

// PG_DIAG_* are character-literal macros; a function makes the one we read callable
// from Swift without relying on how the importer treats them.
static inline const char *accord_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}
static inline const char *accord_pq_primary_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}
#endif
