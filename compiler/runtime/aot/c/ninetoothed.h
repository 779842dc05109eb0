// The calling convention of ahead-of-time kernels, laid out as NineToothed lays it out, so a
// caller written for NineToothed's kernels calls these. Written beside every kernel's files.
#ifndef NINETOOTHED_H
#define NINETOOTHED_H

#include <stdint.h>

typedef struct {
    void *data;
    uint64_t *shape;
    int64_t *strides;
} NineToothedTensor;

typedef void *NineToothedStream;

typedef int NineToothedResult;

#endif
