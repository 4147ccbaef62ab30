/*
 * Inlined-code fixture for the analyzer tests (x86-64): gcc 12.2's
 * output (the DWARF 4 of its inlined calls included) for the C below,
 *   gcc -O2 -g -gdwarf-4 -S -fPIC -fno-asynchronous-unwind-tables
 *       -fcf-protection=none -fno-ident -gno-variable-location-views
 *       -fdebug-prefix-map=$PWD=/fixture inline.c
 * kept as it was written so that the offsets below stay whatever
 * compiler builds the tests. Built with -g0 (the DWARF is the file's).
 *
 *   static volatile int fi_sink;
 *   static inline __attribute__((always_inline)) int
 *   fi_leaf(int x)                          lines 4-9
 *   {
 *           fi_sink = x * 7;                line 7
 *           return fi_sink + 1;             line 8
 *   }
 *   static inline __attribute__((always_inline)) int
 *   fi_mid(int x)                           lines 11-17
 *   {
 *           int y = fi_leaf(x);             line 14
 *           fi_sink = y;                    line 15
 *           return fi_sink + 3;             line 16
 *   }
 *   __attribute__((noinline, used)) int
 *   fi_outer(int x)                         lines 19-25
 *   {
 *           int a = fi_mid(x);              line 22
 *           fi_sink = a;                    line 23
 *           return fi_leaf(fi_sink);        line 24
 *   }
 *
 * Offsets in fi_outer and the frames the DWARF gives them, outermost
 * first (addr2line -i):
 *   +0x00..+0x0f  fi_outer:22, fi_mid:14, fi_leaf:7
 *   +0x10..+0x1b  fi_outer:22, fi_mid:14, fi_leaf:8
 *   +0x1c..+0x27  fi_outer:22, fi_mid:15 and 16
 *   +0x28..+0x32  fi_outer:23 and 24
 *   +0x33..+0x41  fi_outer:24, fi_leaf:7
 *   +0x42..+0x4b  fi_outer:24, fi_leaf:8
 */
	.file	"inline.c"
	.text
.Ltext0:
	.cfi_sections	.debug_frame
	.file 1 "inline.c"
	.p2align 4
	.globl	fi_outer
	.type	fi_outer, @function
fi_outer:
.LFB2:
	.loc 1 21 1
	.cfi_startproc
.LVL0:
	.loc 1 22 2
.LBB10:
.LBB11:
	.loc 1 14 2
.LBB12:
.LBB13:
	.loc 1 7 2
	.loc 1 7 14 is_stmt 0
	leal	0(,%rdi,8), %eax
	subl	%edi, %eax
	.loc 1 7 10
	movl	%eax, fi_sink(%rip)
	.loc 1 8 2 is_stmt 1
	.loc 1 8 17 is_stmt 0
	movl	fi_sink(%rip), %eax
	addl	$1, %eax
.LVL1:
.LBE13:
.LBE12:
	.loc 1 15 2 is_stmt 1
	.loc 1 15 10 is_stmt 0
	movl	%eax, fi_sink(%rip)
	.loc 1 16 2 is_stmt 1
	.loc 1 16 17 is_stmt 0
	movl	fi_sink(%rip), %eax
.LVL2:
	addl	$3, %eax
.LVL3:
.LBE11:
.LBE10:
	.loc 1 23 2 is_stmt 1
	.loc 1 23 10 is_stmt 0
	movl	%eax, fi_sink(%rip)
.LVL4:
	.loc 1 24 2 is_stmt 1
	.loc 1 24 9 is_stmt 0
	movl	fi_sink(%rip), %edx
.LVL5:
.LBB14:
.LBB15:
	.loc 1 7 2 is_stmt 1
	.loc 1 7 14 is_stmt 0
	leal	0(,%rdx,8), %eax
.LVL6:
	subl	%edx, %eax
	.loc 1 7 10
	movl	%eax, fi_sink(%rip)
.LVL7:
	.loc 1 8 2 is_stmt 1
	.loc 1 8 17 is_stmt 0
	movl	fi_sink(%rip), %eax
.LVL8:
	addl	$1, %eax
.LBE15:
.LBE14:
	.loc 1 25 1
	ret
	.cfi_endproc
.LFE2:
	.size	fi_outer, .-fi_outer
	.local	fi_sink
	.comm	fi_sink,4,4
.Letext0:
	.section	.debug_info,"",@progbits
.Ldebug_info0:
	.long	0x13a
	.value	0x4
	.long	.Ldebug_abbrev0
	.byte	0x8
	.uleb128 0x1
	.long	.LASF1
	.byte	0xc
	.long	.LASF2
	.long	.LASF3
	.quad	.Ltext0
	.quad	.Letext0-.Ltext0
	.long	.Ldebug_line0
	.uleb128 0x2
	.long	.LASF0
	.byte	0x1
	.byte	0x2
	.byte	0x15
	.long	0x4a
	.uleb128 0x9
	.byte	0x3
	.quad	fi_sink
	.uleb128 0x3
	.byte	0x4
	.byte	0x5
	.string	"int"
	.uleb128 0x4
	.long	0x43
	.uleb128 0x5
	.long	.LASF4
	.byte	0x1
	.byte	0x14
	.byte	0x1
	.long	0x43
	.quad	.LFB2
	.quad	.LFE2-.LFB2
	.uleb128 0x1
	.byte	0x9c
	.long	0xff
	.uleb128 0x6
	.string	"x"
	.byte	0x1
	.byte	0x14
	.byte	0xe
	.long	0x43
	.uleb128 0x1
	.byte	0x55
	.uleb128 0x7
	.string	"a"
	.byte	0x1
	.byte	0x16
	.byte	0x6
	.long	0x43
	.long	.LLST0
	.uleb128 0x8
	.long	0xff
	.quad	.LBB10
	.quad	.LBE10-.LBB10
	.byte	0x1
	.byte	0x16
	.byte	0xa
	.long	0xdc
	.uleb128 0x9
	.long	0x110
	.long	.LLST1
	.uleb128 0xa
	.long	0x11a
	.long	.LLST2
	.uleb128 0xb
	.long	0x125
	.quad	.LBB12
	.quad	.LBE12-.LBB12
	.byte	0x1
	.byte	0xe
	.byte	0xa
	.uleb128 0x9
	.long	0x132
	.long	.LLST3
	.byte	0
	.byte	0
	.uleb128 0xb
	.long	0x125
	.quad	.LBB14
	.quad	.LBE14-.LBB14
	.byte	0x1
	.byte	0x18
	.byte	0x9
	.uleb128 0x9
	.long	0x132
	.long	.LLST4
	.byte	0
	.byte	0
	.uleb128 0xc
	.long	.LASF5
	.byte	0x1
	.byte	0xc
	.byte	0x1
	.long	0x43
	.byte	0x3
	.long	0x125
	.uleb128 0xd
	.string	"x"
	.byte	0x1
	.byte	0xc
	.byte	0xc
	.long	0x43
	.uleb128 0xe
	.string	"y"
	.byte	0x1
	.byte	0xe
	.byte	0x6
	.long	0x43
	.byte	0
	.uleb128 0xf
	.long	.LASF6
	.byte	0x1
	.byte	0x5
	.byte	0x1
	.long	0x43
	.byte	0x3
	.uleb128 0xd
	.string	"x"
	.byte	0x1
	.byte	0x5
	.byte	0xd
	.long	0x43
	.byte	0
	.byte	0
	.section	.debug_abbrev,"",@progbits
.Ldebug_abbrev0:
	.uleb128 0x1
	.uleb128 0x11
	.byte	0x1
	.uleb128 0x25
	.uleb128 0xe
	.uleb128 0x13
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x1b
	.uleb128 0xe
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x10
	.uleb128 0x17
	.byte	0
	.byte	0
	.uleb128 0x2
	.uleb128 0x34
	.byte	0
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x18
	.byte	0
	.byte	0
	.uleb128 0x3
	.uleb128 0x24
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x3e
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0x8
	.byte	0
	.byte	0
	.uleb128 0x4
	.uleb128 0x35
	.byte	0
	.uleb128 0x49
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0x5
	.uleb128 0x2e
	.byte	0x1
	.uleb128 0x3f
	.uleb128 0x19
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x27
	.uleb128 0x19
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x40
	.uleb128 0x18
	.uleb128 0x2117
	.uleb128 0x19
	.uleb128 0x1
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0x6
	.uleb128 0x5
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x18
	.byte	0
	.byte	0
	.uleb128 0x7
	.uleb128 0x34
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x17
	.byte	0
	.byte	0
	.uleb128 0x8
	.uleb128 0x1d
	.byte	0x1
	.uleb128 0x31
	.uleb128 0x13
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x58
	.uleb128 0xb
	.uleb128 0x59
	.uleb128 0xb
	.uleb128 0x57
	.uleb128 0xb
	.uleb128 0x1
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0x9
	.uleb128 0x5
	.byte	0
	.uleb128 0x31
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x17
	.byte	0
	.byte	0
	.uleb128 0xa
	.uleb128 0x34
	.byte	0
	.uleb128 0x31
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x17
	.byte	0
	.byte	0
	.uleb128 0xb
	.uleb128 0x1d
	.byte	0x1
	.uleb128 0x31
	.uleb128 0x13
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x58
	.uleb128 0xb
	.uleb128 0x59
	.uleb128 0xb
	.uleb128 0x57
	.uleb128 0xb
	.byte	0
	.byte	0
	.uleb128 0xc
	.uleb128 0x2e
	.byte	0x1
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x27
	.uleb128 0x19
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x20
	.uleb128 0xb
	.uleb128 0x1
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0xd
	.uleb128 0x5
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0xe
	.uleb128 0x34
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0xf
	.uleb128 0x2e
	.byte	0x1
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x27
	.uleb128 0x19
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x20
	.uleb128 0xb
	.byte	0
	.byte	0
	.byte	0
	.section	.debug_loc,"",@progbits
.Ldebug_loc0:
.LLST0:
	.quad	.LVL3-.Ltext0
	.quad	.LVL6-.Ltext0
	.value	0x1
	.byte	0x50
	.quad	.LVL6-.Ltext0
	.quad	.LVL7-.Ltext0
	.value	0x9
	.byte	0x3
	.quad	fi_sink
	.quad	0
	.quad	0
.LLST1:
	.quad	.LVL0-.Ltext0
	.quad	.LVL3-.Ltext0
	.value	0x1
	.byte	0x55
	.quad	0
	.quad	0
.LLST2:
	.quad	.LVL1-.Ltext0
	.quad	.LVL2-.Ltext0
	.value	0x1
	.byte	0x50
	.quad	.LVL2-.Ltext0
	.quad	.LVL4-.Ltext0
	.value	0x9
	.byte	0x3
	.quad	fi_sink
	.quad	0
	.quad	0
.LLST3:
	.quad	.LVL0-.Ltext0
	.quad	.LVL1-.Ltext0
	.value	0x1
	.byte	0x55
	.quad	0
	.quad	0
.LLST4:
	.quad	.LVL5-.Ltext0
	.quad	.LVL8-.Ltext0
	.value	0x1
	.byte	0x51
	.quad	0
	.quad	0
	.section	.debug_aranges,"",@progbits
	.long	0x2c
	.value	0x2
	.long	.Ldebug_info0
	.byte	0x8
	.byte	0
	.value	0
	.value	0
	.quad	.Ltext0
	.quad	.Letext0-.Ltext0
	.quad	0
	.quad	0
	.section	.debug_line,"",@progbits
.Ldebug_line0:
	.section	.debug_str,"MS",@progbits,1
.LASF1:
	.string	"GNU C17 12.2.0 -mtune=generic -march=x86-64 -g -gdwarf-4 -gno-variable-location-views -O2 -fPIC -fno-asynchronous-unwind-tables -fcf-protection=none -fno-ident"
.LASF6:
	.string	"fi_leaf"
.LASF4:
	.string	"fi_outer"
.LASF2:
	.string	"inline.c"
.LASF3:
	.string	"/fixture"
.LASF0:
	.string	"fi_sink"
.LASF5:
	.string	"fi_mid"
	.section	.note.GNU-stack,"",@progbits
