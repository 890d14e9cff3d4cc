# Runs a command in a pseudo-terminal and bridges it to this process's pipes, so a test can drive a TTY program.
# Usage: python3 pty-bridge.py COLUMNS ROWS COMMAND [ARGS...]; exits with the command's exit code.
import fcntl, os, pty, select, struct, sys, termios

cols, rows, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
stdin_open = True
while True:
    readers = [fd] + ([0] if stdin_open else [])
    ready, _, _ = select.select(readers, [], [])
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b''
        if not data:
            break
        os.write(1, data)
    if 0 in ready:
        data = os.read(0, 65536)
        if data:
            os.write(fd, data)
        else:
            stdin_open = False
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
