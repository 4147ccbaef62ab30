#!/usr/bin/env node
// Reads a gzipped profile.proto with a real decoder, DataDog's
// pprof-format from npm (pinned in tests/js/package.json, installed by
// `npm ci --prefix tests/js`), checks what the schema requires of
// references between its parts and that its strings are UTF-8, and
// prints the profile as JSON with
// every string index resolved, for test_export_pprof.py to compare with
// profanalyze's own report.
//
// usage: node pprof-decode.js FILE.pb.gz
// Exit status: 0 decoded and consistent, 1 not (the reasons on stderr),
// 2 usage, 3 the decoder is not installed.
'use strict';

const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { createRequire } = require('module');

const jsDir = path.resolve(__dirname, '..', 'js');

function loadDecoder() {
  try {
    return createRequire(path.join(jsDir, 'package.json'))('pprof-format');
  } catch (e) {
    process.stderr.write(
      `pprof-decode.js: the pprof decoder (npm package pprof-format) is ` +
      `not installed under ${jsDir}/node_modules: run ` +
      `\`npm ci --prefix tests/js\` (scripts/setup-deps does)\n  ` +
      `${e.message.split('\n')[0]}\n`);
    process.exit(3);
  }
}

const errors = [];
function fail(msg) {
  errors.push(msg);
}

// pprof-format gives numbers of more than 4 varint bytes as BigInt.
function num(v, what) {
  const n = Number(v === undefined ? 0 : v);
  if (!Number.isSafeInteger(n) || n < 0) {
    fail(`${what}: ${v} is not a non-negative safe integer`);
  }
  return n;
}

// pprof-format reads strings leniently (bytes that are not UTF-8 become
// U+FFFD), but protobuf strings must be UTF-8 and strict decoders reject
// a profile whose string table has other bytes: check them here, walking
// the top-level fields (all varints or length-delimited in profile.proto).
function checkStrictUtf8(buf) {
  const strict = new TextDecoder('utf-8', { fatal: true });
  let i = 0;
  let n = 0;
  const varint = () => {
    let v = 0;
    let shift = 1;
    for (;;) {
      if (i >= buf.length) throw new Error('truncated varint');
      const b = buf[i++];
      v += (b & 0x7f) * shift;
      shift *= 128;
      if (b < 0x80) return v;
    }
  };
  while (i < buf.length) {
    const tag = varint();
    const wire = tag % 8;
    if (wire === 0) {
      varint();
    } else if (wire === 2) {
      const len = varint();
      if (i + len > buf.length) throw new Error('truncated field');
      if (Math.floor(tag / 8) === 6) {
        try {
          strict.decode(buf.subarray(i, i + len));
        } catch (e) {
          fail(`string_table[${n}] is not UTF-8`);
        }
        n++;
      }
      i += len;
    } else {
      throw new Error(`top-level field ${Math.floor(tag / 8)}: wire type ` +
        `${wire}, not one profile.proto uses`);
    }
  }
}

function main() {
  if (process.argv.length !== 3) {
    process.stderr.write('usage: node pprof-decode.js FILE.pb.gz\n');
    process.exit(2);
  }
  const { Profile } = loadDecoder();
  const file = process.argv[2];
  const gz = fs.readFileSync(file);
  if (gz.length < 2 || gz[0] !== 0x1f || gz[1] !== 0x8b) {
    process.stderr.write(`${file}: not gzip (profile.proto files are ` +
      'gzip-compressed)\n');
    process.exit(1);
  }
  const raw = zlib.gunzipSync(gz);
  checkStrictUtf8(raw);
  const prof = Profile.decode(raw);
  const strings = prof.stringTable.strings;

  function str(i, what) {
    const k = num(i, what);
    if (k >= strings.length) {
      fail(`${what}: string index ${k} past the table (${strings.length})`);
      return null;
    }
    return strings[k];
  }
  function valueType(vt, what) {
    return vt ? [str(vt.type, `${what}.type`), str(vt.unit, `${what}.unit`)]
      : null;
  }
  function ids(list, what) {
    const seen = new Map();
    for (const x of list) {
      const id = num(x.id, `${what}.id`);
      if (id === 0) fail(`${what} with id 0`);
      if (seen.has(id)) fail(`${what} id ${id} twice`);
      seen.set(id, x);
    }
    return seen;
  }

  if (strings.length === 0 || strings[0] !== '') {
    fail(`string_table[0] is ${JSON.stringify(strings[0])}, not ""`);
  }
  const out = {
    string_table_size: strings.length,
    sample_type: prof.sampleType.map(
      (vt, i) => valueType(vt, `sample_type[${i}]`)),
    default_sample_type: str(prof.defaultSampleType, 'default_sample_type'),
    period_type: valueType(prof.periodType, 'period_type'),
    period: num(prof.period, 'period'),
    // Nanoseconds since 1970 exceed 2^53: kept exact, as a string.
    time_nanos: String(BigInt(prof.timeNanos === undefined ? 0 :
                              prof.timeNanos)),
    duration_nanos: num(prof.durationNanos, 'duration_nanos'),
    drop_frames: str(prof.dropFrames, 'drop_frames'),
    comments: prof.comment.map((c) => str(c, 'comment')),
  };

  const mappings = ids(prof.mapping, 'mapping');
  const functions = ids(prof.function, 'function');
  const locations = ids(prof.location, 'location');
  out.mappings = prof.mapping.map((m) => ({
    id: num(m.id, 'mapping.id'),
    filename: str(m.filename, 'mapping.filename'),
    build_id: str(m.buildId, 'mapping.build_id'),
    has_functions: m.hasFunctions,
    has_filenames: m.hasFilenames,
    has_line_numbers: m.hasLineNumbers,
    memory_start: num(m.memoryStart, 'mapping.memory_start'),
    memory_limit: num(m.memoryLimit, 'mapping.memory_limit'),
  }));
  out.functions = prof.function.map((f) => ({
    id: num(f.id, 'function.id'),
    name: str(f.name, 'function.name'),
    system_name: str(f.systemName, 'function.system_name'),
    filename: str(f.filename, 'function.filename'),
    start_line: num(f.startLine, 'function.start_line'),
  }));
  out.locations = prof.location.map((l) => {
    const id = num(l.id, 'location.id');
    const mid = num(l.mappingId, 'location.mapping_id');
    if (mid !== 0 && !mappings.has(mid)) {
      fail(`location ${id}: no mapping ${mid}`);
    }
    if (l.line.length === 0) fail(`location ${id} has no line`);
    const lines = l.line.map((ln) => {
      const fid = num(ln.functionId, 'line.function_id');
      if (!functions.has(fid)) fail(`location ${id}: no function ${fid}`);
      return { function_id: fid, line: num(ln.line, 'line.line') };
    });
    return { id, mapping_id: mid, address: num(l.address, 'address'), lines };
  });
  out.samples = prof.sample.map((s, i) => {
    if (s.value.length !== prof.sampleType.length) {
      fail(`sample ${i}: ${s.value.length} values for ` +
        `${prof.sampleType.length} sample types`);
    }
    const locs = s.locationId.map((x) => num(x, 'sample.location_id'));
    for (const l of locs) {
      if (!locations.has(l)) fail(`sample ${i}: no location ${l}`);
    }
    return {
      location_ids: locs,
      values: s.value.map((v) => num(v, 'sample.value')),
      labels: s.label.map((lb) => ({
        key: str(lb.key, 'label.key'),
        str: Number(lb.str) ? str(lb.str, 'label.str') : null,
        num: num(lb.num, 'label.num'),
      })),
    };
  });

  if (errors.length) {
    process.stderr.write(`${file}: ${errors.length} problems:\n  ` +
      errors.slice(0, 20).join('\n  ') + '\n');
    process.exit(1);
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main();
