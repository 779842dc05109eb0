// Calling a TVM packed function (compiler/runtime/aot/tvm_form.py) without TVM's runtime: the
// structures of TVM FFI's calling convention and of DLPack, laid out as tvm/ffi/c_api.h and
// dlpack/dlpack.h lay them out; the one function of TVM FFI a compiled kernel calls (to report a
// failed check) and the workspace functions it calls through pointers, given here.
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int32_t device_type;  // kDLCPU = 1
  int32_t device_id;
} ntc_dl_device;

typedef struct {
  uint8_t code;  // kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6
  uint8_t bits;
  uint16_t lanes;
} ntc_dl_dtype;

typedef struct {
  void* data;
  ntc_dl_device device;
  int32_t ndim;
  ntc_dl_dtype dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} ntc_dl_tensor;

typedef struct {
  int32_t type_index;  // kTVMFFINone 0, kTVMFFIInt 1, kTVMFFIBool 2, kTVMFFIFloat 3,
                       // kTVMFFIDLTensorPtr 7
  uint32_t zero_padding;
  union {
    int64_t v_int64;
    double v_float64;
    void* v_ptr;
  };
} ntc_ffi_any;

// The message of the last failed check of a kernel in this thread. Weak: every kernel of a
// library of variants shares one.
extern "C" {
__attribute__((weak)) thread_local char ntc_tvm_message[512];
}

extern "C" __attribute__((weak)) void TVMFFIErrorSetRaisedFromCStrParts(const char* kind,
                                                                        const char** parts,
                                                                        int32_t count) {
  size_t used = (size_t)snprintf(ntc_tvm_message, sizeof ntc_tvm_message, "%s:", kind);
  for (int32_t i = 0; i < count && used < sizeof ntc_tvm_message; ++i) {
    used += (size_t)snprintf(ntc_tvm_message + used, sizeof ntc_tvm_message - used, " %s",
                             parts[i]);
  }
}

extern "C" void* __TVMBackendAllocWorkspace;
extern "C" void* __TVMBackendFreeWorkspace;

static void* ntc_alloc_workspace(int, int, uint64_t bytes, int, int) {
  return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

static int ntc_free_workspace(int, int, void* pointer) {
  free(pointer);
  return 0;
}
