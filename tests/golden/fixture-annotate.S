/*
 * Disassembly fixture for the analyzer tests (x86-64): a few instructions
 * of known encoding, a call of another function and one through the PLT,
 * and a hand-written line table (.loc, as in fixture-lines.S; built with
 * -g0). Offsets in fa_work:
 *   +0  push %rbx            line 10
 *   +1  mov %rdi, %rbx
 *   +4  call fa_callee       line 11
 *   +9  imul %rbx, %rax      line 12
 *   +13 mov 0x60(%rsp), %rcx
 *   +18 movabs $..., %rdx    (10 bytes: a continuation line of bytes)
 *   +28 call malloc@plt      line 13
 *   +33 pop %rbx
 *   +34 ret
 */
	.file 1 "/fixture/annotate.c"
	.text
	.p2align 6
	.globl fa_callee
	.type fa_callee, %function
fa_callee:
	.loc 1 3 0
	movq %rdi, %rax
	addq $1, %rax
	ret
	.size fa_callee, .-fa_callee
	.p2align 4
	.globl fa_work
	.type fa_work, %function
fa_work:
	.loc 1 10 0
	pushq %rbx
	movq %rdi, %rbx
	.loc 1 11 0
	call fa_callee
	.loc 1 12 0
	imulq %rbx, %rax
	movq 0x60(%rsp), %rcx
	movabsq $0x1122334455667788, %rdx
	.loc 1 13 0
	call malloc@PLT
	popq %rbx
	ret
	.size fa_work, .-fa_work
	.section .note.GNU-stack,"",%progbits
