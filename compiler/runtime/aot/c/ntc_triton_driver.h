// A Triton cubin's function in the calling thread's current CUDA context, loaded on first use
// there through the driver, which is opened at the first launch (compiler/runtime/aot/
// triton_form.py defines ntc_cubin, NTC_KERNEL_NAME, NTC_SHARED and NTC_NO_DRIVER before it).
#pragma once
#include <cuda.h>
#include <dlfcn.h>
#include <mutex>

// The driver's functions, opened at the first launch.
struct ntc_driver {
  CUresult (*ctx_get_current)(CUcontext*);
  CUresult (*module_load_data)(CUmodule*, const void*);
  CUresult (*module_get_function)(CUfunction*, CUmodule, const char*);
  CUresult (*func_set_attribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, unsigned, CUstream, void**, void**);
};

// The kernel's function in the calling thread's current context, loaded on first use there.
static CUresult ntc_function(ntc_driver** driver, CUfunction* function) {
  static std::mutex lock;
  static ntc_driver loaded;
  static bool opened = false;
  static CUcontext contexts[64];
  static CUfunction functions[64];
  static int count = 0;
  std::lock_guard<std::mutex> guard(lock);
  if (!opened) {
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return (CUresult)NTC_NO_DRIVER;
    loaded.ctx_get_current = (CUresult(*)(CUcontext*))dlsym(library, "cuCtxGetCurrent");
    loaded.module_load_data =
        (CUresult(*)(CUmodule*, const void*))dlsym(library, "cuModuleLoadData");
    loaded.module_get_function = (CUresult(*)(CUfunction*, CUmodule, const char*))dlsym(
        library, "cuModuleGetFunction");
    loaded.func_set_attribute =
        (CUresult(*)(CUfunction, CUfunction_attribute, int))dlsym(library, "cuFuncSetAttribute");
    loaded.launch_kernel = (CUresult(*)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, unsigned, unsigned, CUstream, void**,
                                        void**))dlsym(library, "cuLaunchKernel");
    opened = true;
  }
  *driver = &loaded;
  CUcontext context;
  CUresult result = loaded.ctx_get_current(&context);
  if (result != CUDA_SUCCESS) return result;
  for (int i = 0; i < count; ++i) {
    if (contexts[i] == context) {
      *function = functions[i];
      return CUDA_SUCCESS;
    }
  }
  if (count == 64) return CUDA_ERROR_OUT_OF_MEMORY;
  CUmodule module;
  result = loaded.module_load_data(&module, ntc_cubin);
  if (result != CUDA_SUCCESS) return result;
  result = loaded.module_get_function(function, module, NTC_KERNEL_NAME);
  if (result != CUDA_SUCCESS) return result;
  if (NTC_SHARED > 49152) {
    result = loaded.func_set_attribute(
        *function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, NTC_SHARED);
    if (result != CUDA_SUCCESS) return result;
  }
  contexts[count] = context;
  functions[count++] = *function;
  return CUDA_SUCCESS;
}
