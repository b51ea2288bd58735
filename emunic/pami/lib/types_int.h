/* Private to types.c (type objects) and data_ops.c (data functions,
 * reductions, PAMI_Type_transform_data); not part of pami_lib.h. */
#ifndef EMUNIC_PAMI_TYPES_INT_H
#define EMUNIC_PAMI_TYPES_INT_H

#include <stddef.h>

/* The element a type is made of, for reductions. A user type inherits its
 * subtypes' primitive when every piece came from PAMI_Type_add_typed with
 * the same primitive; PAMI_Type_add_simple (raw bytes) makes it PT_NONE. */
enum pt_prim {
    PT_NONE = 0, /* raw bytes of unknown meaning */
    PT_BYTE,
    PT_SCHAR, PT_UCHAR, PT_SSHORT, PT_USHORT, PT_SINT, PT_UINT,
    PT_SLONG, PT_ULONG, PT_SLLONG, PT_ULLONG,
    PT_FLOAT, PT_DOUBLE, PT_LDOUBLE,
    PT_LOGICAL1, PT_LOGICAL2, PT_LOGICAL4, PT_LOGICAL8,
    PT_FCOMPLEX, PT_DCOMPLEX,
    PT_LOC_2INT, PT_LOC_2FLOAT, PT_LOC_2DOUBLE, PT_LOC_SHORT_INT,
    PT_LOC_FLOAT_INT, PT_LOC_DOUBLE_INT, PT_LOC_LONG_INT, PT_LOC_LONGDOUBLE_INT,
    PT_COUNT_
};

/* MAXLOC/MINLOC elements: laid out as these C structs (padding included),
 * as the matching MPI pair types are. */
struct pt_loc_2int { int v; int i; };
struct pt_loc_2float { float v; float i; };
struct pt_loc_2double { double v; double i; };
struct pt_loc_short_int { short v; int i; };
struct pt_loc_float_int { float v; int i; };
struct pt_loc_double_int { double v; int i; };
struct pt_loc_long_int { long v; int i; };
struct pt_loc_longdouble_int { long double v; int i; };

struct pamil_type;

/* Primitive of a complete type, and sizeof one primitive element (0 for
 * PT_NONE). */
enum pt_prim pamil_type_prim(const struct pamil_type *t);
size_t pamil_prim_size(enum pt_prim p);
const char *pamil_prim_name(enum pt_prim p);
/* gcd of every block length given to add_simple/add_typed (0 if empty):
 * the data stream's pieces all start and end on multiples of it. */
size_t pamil_type_unit(const struct pamil_type *t);

#endif
