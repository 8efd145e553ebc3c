// Package gputest is the conformance suite of gpu.Backend implementations, the way gonum's
// blas/testblas serves every BLAS: each backend runs it from its own test,
//
//	func TestConformance(t *testing.T) { gputest.Run(t, mybackend.New(), gputest.Options{}) }
//
// Run executes every test below as a subtest; the exported Test* functions run one of them
// (gputest.TestLinear(t, b, opts)).
//
// Every op of gpu.Backend runs on fresh random inputs (seeded by the test's name: reproducible)
// against a float64 reference written out plainly in this package, at odd sizes (1, 7, 129,
// non-multiples of any tile) next to the models' real ones. Outputs are poisoned with NaN
// (Upload before the op) so that an element the op forgets to write fails; strided layouts
// check that the gaps between rows are left alone. Tensors are placed at varying offsets inside
// larger buffers (views made with Slice, odd offsets included, BF16 weights too) whose guard
// elements around the view must survive every op, and inputs must come back unchanged.
//
// # Tolerances
//
// Comparisons use the relative L2 error ‖got − ref‖/‖ref‖ and the max abs error
// ≤ 10·tol·max|ref|; every element must be finite. The bounds sit 3–10× above the errors
// measured on the CPU backends (set Options.LogErrors to log every comparison):
//   - GEMM-based ops (Linear, Attention, Conv2D): tolGemm(k) = 2e-7·√k for a reduction of
//     length k (8e-7 at k ≤ 16, 1.1e-5 at k = 3072). bf16 weights are compared with the
//     float64 product of the same bf16-rounded weights, so they are held to the same bound.
//   - element-wise and row-wise ops (activations, RoPE): tolElem = 3e-7; those that divide
//     (SiLU and SwiGLU's sigmoid, the norms' means and 1/√): tolDiv = tolElem + 2.5·2⁻²³, the
//     relative error WGSL allows one division (below).
//   - copies and exact ops (Copy, Transpose, Patchify, Unpatchify, UpsampleNearest2x, Add,
//     Mul, GatedAdd, AddScaled, Guidance, the inverse BatchNorm, Read of BF16 weights):
//     bit-for-bit equality with the float32 formula the op documents (or, for a formula ending
//     in a multiply-add, with that multiply-add fused: see "Contracted multiply-adds")
//     (GatedAdd x + float32(gate·y), AddScaled y + float32(s·x), Guidance
//     u + float32(g·float32(c − u)), inverse BatchNorm float32(x·std) + mean).
//   - the forward BatchNorm float32(x − mean)/std: within 2.5 ulp of the exact quotient.
//   - Options.BF16Activations (onednn): the bf16-weight Linear rounds its activations to
//     bfloat16 and is compared with the float64 product of bf16-rounded x and w, at tolGemm too.
//   - Options.F16Linear (vulkan's fast precision): the bf16-weight Linear multiplies float16
//     operands (x scaled per row); compared with the float64 product of the rounded operands
//     at tolGemm and with the float32 reference at TolF16Linear.
//
// Options.TolScale multiplies every tolerance but the exact ones; backends should pass at 1.
//
// # WGSL's accuracy rules
//
// The bounds hold on every conforming WebGPU implementation, not only on the ones measured
// (https://www.w3.org/TR/WGSL/#concrete-float-accuracy). +, − and · are correctly rounded
// (contraction aside), so the exact checks above stand. x / y may be off by 2.5 ulp: an
// NVIDIA H200 gave a BatchNorm quotient one ulp from the correctly rounded one, which the old
// exact check refused; it is now held to 2.5 ulp of the exact quotient (checkULP, WGSL's ulp:
// ulp32), and the tolerance of ops that divide carries one division's 2.5·2⁻²³ (tolDiv).
// exp and exp2 may be off by 3 + 2·|x| ulp and inverseSqrt by 2 ulp, but the WebGPU kernels
// use neither: SiLU and attention compute exp with their own polynomial (only +, ·), and the
// norms take 1/sqrt(m) refined by a Newton step. A kernel that used the built-in exp2 for
// attention's weights 2^x (x ≤ 0 after the row maximum) would add at most (3 + 2|x|)·2^x ≤ 3
// ulp of the largest weight per weight, about 6 ulp (7e-7) to an output: under tolGemm at every
// head dim (≥ 8e-7).
//
// # Contracted multiply-adds
//
// Shader compilers may contract a·b + c into one fused multiply-add (FMA), rounding once
// instead of twice: WGSL allows it, and WGSL has no way to forbid it per expression (no
// `precise`, no NoContraction decoration through naga; Metal compiles with fast math on by
// default; Vulkan drivers contract SPIR-V without NoContraction). Decision: the suite allows
// contraction everywhere, and the kernels do not try to prevent it. Per op:
//   - tolerance-based ops (Linear, Attention, Conv2D, the norms, SiLU, SwiGLU, RoPE): the
//     reference is float64 and pins no rounding; a fused step has at most the error of the
//     unfused one (one rounding instead of two), so the rel-L2 bounds above hold unchanged
//     (0 extra ulps).
//   - AddScaled (y + s·x), GatedAdd (x + gate·y), Guidance (u + g·(c − u)) and the inverse
//     BatchNorm (x·std + mean): the reference pins the unfused rounding (float32 of the
//     product, then the add), as PyTorch's CPU kernels compute it. Each element must equal
//     either that result or the fused one, float32(a·b + c) rounded once, bit for bit: at
//     most ½ ulp of |a·b| apart before the final rounding, i.e. 1 ulp of the result where
//     the product does not cancel against c. Nothing else is accepted. In a generation the
//     difference is ≤ 2⁻²⁴ of each Euler update and guidance delta, far under the golden
//     pipeline's rel-L2 1e-5.
//   - Add, Mul, Copy, the layout ops, the forward BatchNorm ((x − mean)/std) and bf16 reads
//     hold no multiply-add and stay bit-exact (0 ulps).
//
// Lavapipe (LLVM) does not contract these kernels: the fused alternative is exercised only
// on GPUs that do (not verified here: no real GPU was available).
//
// # Errors, memory and concurrency
//
// Ops given bad arguments (too-short tensors, bad dimensions, missing operands, a BF16 operand
// where F32 is needed, a tensor of another backend) must not panic or run, and the next Sync,
// Flush or Read must return an error naming the op (the first one when several failed), after
// which the error is cleared. Freeing the zero Tensor or another backend's tensor and using a
// freed tensor must not panic. Memory must count Alloc and Free in Resident exactly (back to
// the start after freeing), weights in Resident or Viewed, and keep Peak ≥ Resident.
// TestConcurrentUse calls the backend from several goroutines (skip it with
// Options.NoConcurrency where the backend does not support that).
//
// Each test frees the tensors it made; a test leaves the backend as it found it.
package gputest
