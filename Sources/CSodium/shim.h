#ifndef ACCORD_CSODIUM_SHIM_H
#define ACCORD_CSODIUM_SHIM_H
#include <sodium.h>
#endif
