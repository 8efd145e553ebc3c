//go:build amd64 && !purego

#include "textflag.h"

// Constants of expf (expf.go), each repeated 8 times to be used as a ymm memory operand.
DATA expConsts<>+0(SB)/4, $0xc2aeac50
DATA expConsts<>+4(SB)/4, $0xc2aeac50
DATA expConsts<>+8(SB)/4, $0xc2aeac50
DATA expConsts<>+12(SB)/4, $0xc2aeac50
DATA expConsts<>+16(SB)/4, $0xc2aeac50
DATA expConsts<>+20(SB)/4, $0xc2aeac50
DATA expConsts<>+24(SB)/4, $0xc2aeac50
DATA expConsts<>+28(SB)/4, $0xc2aeac50
DATA expConsts<>+32(SB)/4, $0x3fb8aa3b
DATA expConsts<>+36(SB)/4, $0x3fb8aa3b
DATA expConsts<>+40(SB)/4, $0x3fb8aa3b
DATA expConsts<>+44(SB)/4, $0x3fb8aa3b
DATA expConsts<>+48(SB)/4, $0x3fb8aa3b
DATA expConsts<>+52(SB)/4, $0x3fb8aa3b
DATA expConsts<>+56(SB)/4, $0x3fb8aa3b
DATA expConsts<>+60(SB)/4, $0x3fb8aa3b
DATA expConsts<>+64(SB)/4, $0x3f318000
DATA expConsts<>+68(SB)/4, $0x3f318000
DATA expConsts<>+72(SB)/4, $0x3f318000
DATA expConsts<>+76(SB)/4, $0x3f318000
DATA expConsts<>+80(SB)/4, $0x3f318000
DATA expConsts<>+84(SB)/4, $0x3f318000
DATA expConsts<>+88(SB)/4, $0x3f318000
DATA expConsts<>+92(SB)/4, $0x3f318000
DATA expConsts<>+96(SB)/4, $0xb95e8083
DATA expConsts<>+100(SB)/4, $0xb95e8083
DATA expConsts<>+104(SB)/4, $0xb95e8083
DATA expConsts<>+108(SB)/4, $0xb95e8083
DATA expConsts<>+112(SB)/4, $0xb95e8083
DATA expConsts<>+116(SB)/4, $0xb95e8083
DATA expConsts<>+120(SB)/4, $0xb95e8083
DATA expConsts<>+124(SB)/4, $0xb95e8083
DATA expConsts<>+128(SB)/4, $0x39506967
DATA expConsts<>+132(SB)/4, $0x39506967
DATA expConsts<>+136(SB)/4, $0x39506967
DATA expConsts<>+140(SB)/4, $0x39506967
DATA expConsts<>+144(SB)/4, $0x39506967
DATA expConsts<>+148(SB)/4, $0x39506967
DATA expConsts<>+152(SB)/4, $0x39506967
DATA expConsts<>+156(SB)/4, $0x39506967
DATA expConsts<>+160(SB)/4, $0x3ab743ce
DATA expConsts<>+164(SB)/4, $0x3ab743ce
DATA expConsts<>+168(SB)/4, $0x3ab743ce
DATA expConsts<>+172(SB)/4, $0x3ab743ce
DATA expConsts<>+176(SB)/4, $0x3ab743ce
DATA expConsts<>+180(SB)/4, $0x3ab743ce
DATA expConsts<>+184(SB)/4, $0x3ab743ce
DATA expConsts<>+188(SB)/4, $0x3ab743ce
DATA expConsts<>+192(SB)/4, $0x3c088908
DATA expConsts<>+196(SB)/4, $0x3c088908
DATA expConsts<>+200(SB)/4, $0x3c088908
DATA expConsts<>+204(SB)/4, $0x3c088908
DATA expConsts<>+208(SB)/4, $0x3c088908
DATA expConsts<>+212(SB)/4, $0x3c088908
DATA expConsts<>+216(SB)/4, $0x3c088908
DATA expConsts<>+220(SB)/4, $0x3c088908
DATA expConsts<>+224(SB)/4, $0x3d2aa9c1
DATA expConsts<>+228(SB)/4, $0x3d2aa9c1
DATA expConsts<>+232(SB)/4, $0x3d2aa9c1
DATA expConsts<>+236(SB)/4, $0x3d2aa9c1
DATA expConsts<>+240(SB)/4, $0x3d2aa9c1
DATA expConsts<>+244(SB)/4, $0x3d2aa9c1
DATA expConsts<>+248(SB)/4, $0x3d2aa9c1
DATA expConsts<>+252(SB)/4, $0x3d2aa9c1
DATA expConsts<>+256(SB)/4, $0x3e2aaaaa
DATA expConsts<>+260(SB)/4, $0x3e2aaaaa
DATA expConsts<>+264(SB)/4, $0x3e2aaaaa
DATA expConsts<>+268(SB)/4, $0x3e2aaaaa
DATA expConsts<>+272(SB)/4, $0x3e2aaaaa
DATA expConsts<>+276(SB)/4, $0x3e2aaaaa
DATA expConsts<>+280(SB)/4, $0x3e2aaaaa
DATA expConsts<>+284(SB)/4, $0x3e2aaaaa
DATA expConsts<>+288(SB)/4, $0x3f000000
DATA expConsts<>+292(SB)/4, $0x3f000000
DATA expConsts<>+296(SB)/4, $0x3f000000
DATA expConsts<>+300(SB)/4, $0x3f000000
DATA expConsts<>+304(SB)/4, $0x3f000000
DATA expConsts<>+308(SB)/4, $0x3f000000
DATA expConsts<>+312(SB)/4, $0x3f000000
DATA expConsts<>+316(SB)/4, $0x3f000000
DATA expConsts<>+320(SB)/4, $0x3f800000
DATA expConsts<>+324(SB)/4, $0x3f800000
DATA expConsts<>+328(SB)/4, $0x3f800000
DATA expConsts<>+332(SB)/4, $0x3f800000
DATA expConsts<>+336(SB)/4, $0x3f800000
DATA expConsts<>+340(SB)/4, $0x3f800000
DATA expConsts<>+344(SB)/4, $0x3f800000
DATA expConsts<>+348(SB)/4, $0x3f800000
DATA expConsts<>+352(SB)/4, $0x0000007f
DATA expConsts<>+356(SB)/4, $0x0000007f
DATA expConsts<>+360(SB)/4, $0x0000007f
DATA expConsts<>+364(SB)/4, $0x0000007f
DATA expConsts<>+368(SB)/4, $0x0000007f
DATA expConsts<>+372(SB)/4, $0x0000007f
DATA expConsts<>+376(SB)/4, $0x0000007f
DATA expConsts<>+380(SB)/4, $0x0000007f
GLOBL expConsts<>(SB), RODATA|NOPTR, $384

#define LO expConsts<>+0(SB)
#define LOG2E expConsts<>+32(SB)
#define LN2HI expConsts<>+64(SB)
#define LN2LO expConsts<>+96(SB)
#define P0 expConsts<>+128(SB)
#define P1 expConsts<>+160(SB)
#define P2 expConsts<>+192(SB)
#define P3 expConsts<>+224(SB)
#define P4 expConsts<>+256(SB)
#define P5 expConsts<>+288(SB)
#define ONE expConsts<>+320(SB)
#define BIAS expConsts<>+352(SB)

// func maxAVX2(x []float32) float32
// len(x) must be a positive multiple of 8.
TEXT ·maxAVX2(SB), NOSPLIT, $0-28
	MOVQ    x_base+0(FP), SI
	MOVQ    x_len+8(FP), CX
	VMOVUPS (SI), Y0
	ADDQ    $32, SI
	SUBQ    $8, CX
maxloop:
	JZ      maxdone
	VMAXPS  (SI), Y0, Y0
	ADDQ    $32, SI
	SUBQ    $8, CX
	JMP     maxloop
maxdone:
	VEXTRACTF128 $1, Y0, X1
	VMAXPS  X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VMAXPS  X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VMAXPS  X1, X0, X0
	VZEROUPPER
	MOVSS   X0, ret+24(FP)
	RET

// func expShiftedAVX2(x []float32, m float32) float32
// Sets x[i] = exp(x[i] - m) and returns the sum, for len(x) a multiple of 8 and x[i] <= m
// (so that 2^n never overflows); results below the smallest normal float32 are 0.
TEXT ·expShiftedAVX2(SB), NOSPLIT, $0-36
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSS m+24(FP), Y15
	VXORPS       Y14, Y14, Y14 // sum
	SHRQ         $3, CX
	JZ           expdone
exploop:
	VMOVUPS      (SI), Y0
	VSUBPS       Y15, Y0, Y0        // x = v - m
	VCMPPS       $0x11, LO, Y0, Y7  // underflow mask: x < lo (ordered: NaN stays)
	VMULPS       LOG2E, Y0, Y1
	VROUNDPS     $0, Y1, Y1         // n = round(x·log2e)
	VFNMADD231PS LN2HI, Y1, Y0      // r = x - n·ln2hi
	VFNMADD231PS LN2LO, Y1, Y0      // r -= n·ln2lo
	VMULPS       Y0, Y0, Y2         // z = r²
	VMOVUPS      P0, Y3
	VFMADD213PS  P1, Y0, Y3         // p = p·r + c
	VFMADD213PS  P2, Y0, Y3
	VFMADD213PS  P3, Y0, Y3
	VFMADD213PS  P4, Y0, Y3
	VFMADD213PS  P5, Y0, Y3
	VFMADD213PS  Y0, Y2, Y3         // p = p·z + r
	VADDPS       ONE, Y3, Y3        // p += 1
	VCVTPS2DQ    Y1, Y1
	VPADDD       BIAS, Y1, Y1
	VPSLLD       $23, Y1, Y1        // 2^n
	VMULPS       Y1, Y3, Y3
	VANDNPS      Y3, Y7, Y3         // 0 where x < lo
	VMOVUPS      Y3, (SI)
	VADDPS       Y3, Y14, Y14
	ADDQ         $32, SI
	DECQ         CX
	JNZ          exploop
expdone:
	VEXTRACTF128 $1, Y14, X1
	VADDPS       X1, X14, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+32(FP)
	RET
