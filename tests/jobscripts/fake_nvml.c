// A stand-in for libnvidia-ml.so.1 with the few functions app/energy.c uses, so that the
// NVML path is tested without a GPU. Built as fake_nvml/libnvidia-ml.so.1 and found through
// LD_LIBRARY_PATH by test_energy only.
//
// FAKE_NVML_DEVICES   number of devices (default 1)
// FAKE_NVML_ENERGY    "unsupported": the energy counter returns NVML_ERROR_NOT_SUPPORTED
// Device i has UUID "GPU-fake-000i", PCI bus id "0000:0i:00.0", and its energy counter
// advances by (i + 1) joules at every reading, starting from 10^6 mJ (a counter that was
// running before the measurement).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kSuccess = 0, kInvalidArgument = 2, kNotSupported = 3, kNotFound = 6, kMaxDevices = 8 };

struct nvmlDevice_st {
  unsigned index;
};
static struct nvmlDevice_st devices[kMaxDevices];
static unsigned long long readings[kMaxDevices];

static unsigned Count(void) {
  const char *env = getenv("FAKE_NVML_DEVICES");
  int n = env ? atoi(env) : 1;
  return n < 0 ? 0u : n > kMaxDevices ? (unsigned)kMaxDevices : (unsigned)n;
}

int nvmlInit_v2(void) {
  for (unsigned i = 0; i < kMaxDevices; i++) devices[i].index = i;
  return kSuccess;
}

int nvmlShutdown(void) {
  return kSuccess;
}

const char *nvmlErrorString(int code) {
  switch (code) {
    case kSuccess:
      return "Success";
    case kInvalidArgument:
      return "Invalid Argument";
    case kNotSupported:
      return "Not Supported";
    case kNotFound:
      return "Not Found";
    default:
      return "Unknown Error";
  }
}

int nvmlDeviceGetCount_v2(unsigned *count) {
  *count = Count();
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, struct nvmlDevice_st **device) {
  if (index >= Count()) return kInvalidArgument;
  *device = &devices[index];
  return kSuccess;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *pci, struct nvmlDevice_st **device) {
  for (unsigned i = 0; i < Count(); i++) {
    char id[32];
    snprintf(id, sizeof id, "0000:%02x:00.0", i);
    if (!strcmp(id, pci)) {
      *device = &devices[i];
      return kSuccess;
    }
  }
  return kNotFound;
}

int nvmlDeviceGetUUID(struct nvmlDevice_st *device, char *uuid, unsigned length) {
  snprintf(uuid, length, "GPU-fake-%04u", device->index);
  return kSuccess;
}

int nvmlDeviceGetIndex(struct nvmlDevice_st *device, unsigned *index) {
  *index = device->index;
  return kSuccess;
}

int nvmlDeviceGetTotalEnergyConsumption(struct nvmlDevice_st *device, unsigned long long *mj) {
  const char *mode = getenv("FAKE_NVML_ENERGY");
  if (mode && !strcmp(mode, "unsupported")) return kNotSupported;
  readings[device->index]++;
  *mj = 1000000ull + 1000ull * (device->index + 1) * readings[device->index];
  return kSuccess;
}
