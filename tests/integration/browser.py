"""A headless Chromium driven through the DevTools protocol, for the tests
of pages profanalyze writes (--format=html). Standard library only: a
small WebSocket client (RFC 6455, text frames, client-masked) and the
protocol's JSON messages.

The browser runs with its own profile directory and no network access
it could use silently: every request the page makes is recorded
(Network.requestWillBeSent), and so are console errors and uncaught
exceptions, for the tests to check.
"""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import time
import urllib.request

import prof

CANDIDATES = ('chromium', 'chromium-browser', 'google-chrome')


def page_data(path):
    """The data a page written by profanalyze --format=html embeds (its
    profile-data element, parsed); fails when there is none, or when the
    page refers to another file (it must open alone, offline)."""
    text = open(path, encoding='utf-8').read()
    m = re.search(r'<script type="application/json" id="profile-data">'
                  r'(.*?)</script>', text, re.S)
    if not m:
        raise prof.Fail(f'{path}: no profile-data element')
    if re.search(r'<(script|link|img|iframe)[^>]*(src|href)=', text):
        raise prof.Fail(f'{path}: the page refers to another file')
    return json.loads(m.group(1))


def find_chromium():
    """The browser's path; raises prof.Skip when none is installed."""
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    raise prof.Skip('no chromium to load the page in (scripts/setup-deps '
                    'installs Debian\'s chromium)')


class WebSocket:
    """Just enough of a WebSocket client for the DevTools protocol."""

    def __init__(self, url, timeout=30):
        m = re.match(r'ws://([^/:]+):(\d+)(/.*)', url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))),
                                             timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        req = (f'GET {m.group(3)} HTTP/1.1\r\nHost: {m.group(1)}:'
               f'{m.group(2)}\r\nUpgrade: websocket\r\nConnection: Upgrade'
               f'\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13'
               '\r\n\r\n')
        self.sock.sendall(req.encode())
        head = b''
        while b'\r\n\r\n' not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise prof.Fail('DevTools closed the connection')
            head += chunk
        if b' 101 ' not in head.split(b'\r\n', 1)[0]:
            raise prof.Fail(f'DevTools refused the WebSocket: {head[:200]!r}')
        self.buf = head.split(b'\r\n\r\n', 1)[1]

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        if n < 126:
            hdr = struct.pack('!BB', 0x81, 0x80 | n)
        elif n < 65536:
            hdr = struct.pack('!BBH', 0x81, 0x80 | 126, n)
        else:
            hdr = struct.pack('!BBQ', 0x81, 0x80 | 127, n)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(hdr + mask + body)

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise prof.Fail('DevTools closed the connection')
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next text message (fragments joined)."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7f
            if n == 126:
                n = struct.unpack('!H', self._read(2))[0]
            elif n == 127:
                n = struct.unpack('!Q', self._read(8))[0]
            payload = self._read(n)
            op = b0 & 0x0f
            if op == 0x8:
                raise prof.Fail('DevTools closed the WebSocket')
            if op in (0x9, 0xa):
                continue  # ping, pong: Chromium sends none unasked
            parts.append(payload)
            if b0 & 0x80:
                return b''.join(parts).decode()

    def close(self):
        self.sock.close()


class Browser:
    """chromium --headless with one page; use as a context manager."""

    def __init__(self):
        self.path = find_chromium()
        self.profile_dir = prof.tmpdir()
        self.proc = None
        self.ws = None
        self.next_id = 0
        self.events = []

    def __enter__(self):
        args = [self.path, '--headless=new', '--no-sandbox',
                '--disable-gpu', '--no-first-run', '--no-default-browser-check',
                '--disable-background-networking', '--disable-extensions',
                '--disable-component-update', '--disable-sync',
                f'--user-data-dir={self.profile_dir}',
                '--remote-debugging-port=0', '--window-size=1280,800',
                'about:blank']
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        port_file = os.path.join(self.profile_dir, 'DevToolsActivePort')
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file) or \
                os.path.getsize(port_file) == 0:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                err = self.proc.stderr.read() if self.proc.poll() is not None \
                    else ''
                raise prof.Fail(f'chromium did not start: {err[-2000:]}')
            time.sleep(0.1)
        port = open(port_file).read().split('\n')[0]
        with urllib.request.urlopen(f'http://127.0.0.1:{port}/json/list',
                                    timeout=10) as r:
            pages = [t for t in json.load(r) if t['type'] == 'page']
        if not pages:
            raise prof.Fail('chromium has no page to drive')
        self.ws = WebSocket(pages[0]['webSocketDebuggerUrl'])
        for domain in ('Page', 'Runtime', 'Network', 'Log'):
            self.call(f'{domain}.enable')
        return self

    def __exit__(self, *exc):
        if self.ws:
            self.ws.close()
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.proc.stderr.close()

    def call(self, method, **params):
        """Sends a command and returns its result; events that arrive
        meanwhile are kept in self.events."""
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({'id': my_id, 'method': method,
                                 'params': params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get('id') == my_id:
                if 'error' in msg:
                    raise prof.Fail(f'{method}: {msg["error"]}')
                return msg.get('result', {})
            if 'method' in msg:
                self.events.append(msg)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        for e in self.events:
            if e['method'] == method:
                return e
        self.ws.sock.settimeout(timeout)
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            if 'method' in msg:
                self.events.append(msg)
                if msg['method'] == method:
                    return msg
        raise prof.Fail(f'no {method} within {timeout} s')

    def load(self, path):
        self.call('Page.navigate', url='file://' + os.path.abspath(path))
        self.wait_event('Page.loadEventFired')

    def eval(self, expr):
        """The value of a JavaScript expression (JSON-serializable)."""
        r = self.call('Runtime.evaluate', expression=expr,
                      returnByValue=True, awaitPromise=True)
        if 'exceptionDetails' in r:
            raise prof.Fail(f'{expr}: {r["exceptionDetails"]}')
        return r['result'].get('value')

    def click(self, x, y):
        for kind in ('mouseMoved', 'mousePressed', 'mouseReleased'):
            self.call('Input.dispatchMouseEvent', type=kind, x=x, y=y,
                      button='left' if kind != 'mouseMoved' else 'none',
                      clickCount=1)

    def drag(self, x0, x1, y):
        self.call('Input.dispatchMouseEvent', type='mouseMoved', x=x0, y=y)
        self.call('Input.dispatchMouseEvent', type='mousePressed', x=x0,
                  y=y, button='left', clickCount=1)
        self.call('Input.dispatchMouseEvent', type='mouseMoved', x=x1, y=y,
                  button='left')
        self.call('Input.dispatchMouseEvent', type='mouseReleased', x=x1,
                  y=y, button='left', clickCount=1)

    def key(self, key, code=None, text=None):
        params = {'key': key, 'code': code or key}
        if text:
            params['text'] = text
        self.call('Input.dispatchKeyEvent', type='keyDown', **params)
        self.call('Input.dispatchKeyEvent', type='keyUp', key=key,
                  code=code or key)

    def type_text(self, text):
        self.call('Input.insertText', text=text)

    def requests(self):
        """URLs the page asked for."""
        return [e['params']['request']['url'] for e in self.events
                if e['method'] == 'Network.requestWillBeSent']

    def errors(self):
        """Console errors and uncaught exceptions, as text."""
        out = []
        for e in self.events:
            m, p = e['method'], e['params']
            if m == 'Runtime.exceptionThrown':
                out.append(json.dumps(p['exceptionDetails'])[:500])
            elif m == 'Runtime.consoleAPICalled' and p['type'] in (
                    'error', 'assert'):
                out.append(json.dumps(p['args'])[:500])
            elif m == 'Log.entryAdded' and p['entry']['level'] == 'error':
                out.append(p['entry'].get('text', '')[:500])
        return out
