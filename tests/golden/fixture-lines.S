/*
 * Line fixture for the analyzer tests: a library whose DWARF line table
 * is written by hand (.loc), so the source lines of every address are
 * known whatever the compiler: the assembler makes .debug_line and a
 * compilation unit from these directives. Built without -g, which would
 * make the assembler describe this file's own lines instead. A .loc
 * takes effect at the next instruction (not at data), hence nops: one
 * byte each on x86, the machine the tests' offsets are written for.
 *
 *   fl_outer  +0 .. +3   /fixture/lines.c:10
 *             +4 .. +11  /fixture/lines.c:12   (the call of fl_inner)
 *             +12 ..     /fixture/lines.c:13
 *   fl_inner  +0 .. +7   /fixture/lines.c:20
 *             +8 ..      /fixture/inc/lines.h:3
 */
	.file 1 "/fixture/lines.c"
	.file 2 "/fixture/inc/lines.h"
	.text
	.p2align 6
	.globl fl_outer
	.type fl_outer, %function
fl_outer:
	.loc 1 10 0
	.rept 4
	nop
	.endr
	.loc 1 12 0
	.rept 8
	nop
	.endr
	.loc 1 13 0
	.rept 4
	nop
	.endr
	.size fl_outer, .-fl_outer
	.globl fl_inner
	.type fl_inner, %function
fl_inner:
	.loc 1 20 0
	.rept 8
	nop
	.endr
	.loc 2 3 0
	.rept 8
	nop
	.endr
	.size fl_inner, .-fl_inner
	.section .note.GNU-stack,"",%progbits
