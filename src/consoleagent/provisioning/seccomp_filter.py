"""A seccomp filter for the jail: refuses the system calls that widen the kernel's attack surface.

WHY: namespaces, the read-only view and uid 65534 already decide what a script can reach; what is
left is the kernel itself. A script may not need, and so may not use: a nested user namespace
(``unshare``/``clone`` with CLONE_NEWUSER, which would give it capabilities over a namespace of its
own and expose code paths that only root reaches), ``clone3`` (its flags cannot be inspected;
glibc falls back to ``clone`` on ENOSYS), keyrings, BPF, perf events, userfaultfd, io_uring,
ptrace, mounts, module loading, kexec and file handles. Syscalls of a foreign ABI (i386 via
``int 0x80``, x32) are refused outright, or they would bypass the numbers below.

A deny-list in classic BPF, written out by hand because no seccomp library is a dependency;
bwrap loads it (``--seccomp FD``) just before it executes the jail's command. On an architecture
without a table here (neither x86_64 nor aarch64) there is no filter: the other layers still hold.
"""

from __future__ import annotations

import errno
import platform
import struct

CLONE_NEWUSER = 0x10000000
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ, _JGE, _JSET = 0x15, 0x35, 0x45  # BPF_JMP | BPF_{JEQ,JGE,JSET} | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_X32_BIT = 0x40000000
_OFFSET_NR, _OFFSET_ARCH, _OFFSET_ARG0 = 0, 4, 16  # struct seccomp_data (args[0]'s low word: little-endian)

# (audit arch, {name: number}) per machine; numbers from the kernel's unistd tables.
_TABLES: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, {
        "unshare": 272, "clone": 56, "clone3": 435, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321,
        "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "ptrace": 101, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155,
        "open_by_handle_at": 304, "name_to_handle_at": 303, "kexec_load": 246, "kexec_file_load": 320,
        "init_module": 175, "finit_module": 313, "delete_module": 176, "fsopen": 430, "fsmount": 432,
        "move_mount": 429, "open_tree": 428, "fsconfig": 431, "fspick": 433, "mount_setattr": 442,
        "process_vm_readv": 310, "process_vm_writev": 311}),
    "aarch64": (0xC00000B7, {
        "unshare": 97, "clone": 220, "clone3": 435, "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280,
        "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "ptrace": 117, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41,
        "open_by_handle_at": 265, "name_to_handle_at": 264, "kexec_load": 104, "kexec_file_load": 294,
        "init_module": 105, "finit_module": 273, "delete_module": 106, "fsopen": 430, "fsmount": 432,
        "move_mount": 429, "open_tree": 428, "fsconfig": 431, "fspick": 433, "mount_setattr": 442,
        "process_vm_readv": 270, "process_vm_writev": 271}),
}
_FLAG_CHECKED = ("unshare", "clone")  # refused only when asking for a new user namespace


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one) as bwrap reads it, or None without a table."""
    machine = machine or platform.machine()
    if machine not in _TABLES:
        return None
    arch, numbers = _TABLES[machine]
    eperm, enosys = _ERRNO | errno.EPERM, _ERRNO | errno.ENOSYS
    code = [_insn(_LD_W_ABS, _OFFSET_ARCH), _insn(_JEQ, arch, jt=1), _insn(_RET, enosys),
            _insn(_LD_W_ABS, _OFFSET_NR)]
    if machine == "x86_64":
        code += [_insn(_JGE, _X32_BIT, jf=1), _insn(_RET, enosys)]
    for name in _FLAG_CHECKED:
        code += [_insn(_JEQ, numbers[name], jf=4), _insn(_LD_W_ABS, _OFFSET_ARG0),
                 _insn(_JSET, CLONE_NEWUSER, jf=1), _insn(_RET, eperm), _insn(_RET, _ALLOW)]
    code += [_insn(_JEQ, numbers["clone3"], jf=1), _insn(_RET, enosys)]
    for name, number in numbers.items():
        if name not in (*_FLAG_CHECKED, "clone3"):
            code += [_insn(_JEQ, number, jf=1), _insn(_RET, eperm)]
    return b"".join(code + [_insn(_RET, _ALLOW)])
