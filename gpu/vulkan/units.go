//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

// unitKernels are the matrix-unit kernels (GL_NV_cooperative_matrix): specialized with the
// device's matrix shape and subgroup size (Backend.specialize), compiled when the fast
// precision is chosen (SetPrecision), and compared with their twins by SelfCheck.
var unitKernels = map[string]bool{"linearcm": true, "convcm": true, "attncm": true}
