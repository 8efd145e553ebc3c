package backends

// gpuEntries lists the GPU backends of this build, after the CPU ones in Names. None yet:
// the WebGPU helper replaces this file to add "webgpu" (opening it may fail where no adapter
// is found; Open then returns the error).
func gpuEntries() []entry { return nil }
