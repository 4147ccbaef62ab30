#!/usr/bin/env node
'use strict';
/*
 * sympro-check: reads profanalyze's SymPro export the way the SymPro UI
 * does, checks it strictly against the report_data.js format
 * (../shared/reference/sympro-report-data-format.txt) and prints what it
 * found as JSON, for test_export_sympro.py to compare with the --json
 * report of the same spool.
 *
 * usage: node sympro-check.js FILE        report_data.js (--format=sympro)
 *        node sympro-check.js --bare FILE the message list (sympro-json)
 *
 * report_data.js runs in a fresh vm context whose only global is the
 * stub `data` with receiveData(msgs), as the UI's page provides it. The
 * checks: receiveData called once with a list; a metadata message of the
 * spec's shape (version 1) first, then one callgraph message; every ENTER
 * with its required fields (metrics with a numeric time, function, a
 * unique id; callsite and source false or FILE:LINE:COL, inputs with a
 * signature list); EXITs never outnumbering ENTERs and all calls closed;
 * one outermost call; every metric present in every event and never
 * decreasing (the metrics are counters read at each event); each call's
 * exclusive share (its span less its callees') not negative. The .js
 * must not hold U+2028 or U+2029 raw: engines before ES2019 end a string
 * literal there.
 *
 * The summary (stdout), with a call's inclusive cost the difference of
 * its EXIT's and ENTER's metrics, the way the UI computes it:
 *   { kind: "time"|"space", calls, metrics: [names],
 *     sources, callsites,                    calls that have one
 *     root: {incl, excl},                    the outermost call
 *     nodes: [{path: [function...], incl, excl}]   every other call
 *     functions: {name: {incl, excl}} }
 * incl and excl map each metric to an integer: "time" in nanoseconds
 * (a time profile's milliseconds * 1e6), everything else as written.
 * A function's incl counts only its outermost activations (a recursive
 * call is inside its caller's span), its excl all of them.
 */
const fs = require('fs');
const vm = require('vm');

function fail(msg) {
	process.stderr.write('sympro-check: ' + msg + '\n');
	process.exit(1);
}

function check(cond, msg) {
	if (!cond)
		fail(msg);
}

function readMessages(file, bare) {
	const text = fs.readFileSync(file, 'utf8');
	if (bare) {
		try {
			return JSON.parse(text);
		} catch (e) {
			fail(`${file}: not JSON: ${e.message}`);
		}
	}
	const raw = text.search(/[\u2028\u2029]/);
	check(raw < 0, `${file}: raw U+2028/U+2029 at offset ${raw}`);
	const calls = [];
	const context = vm.createContext({
		data: { receiveData: (msgs) => calls.push(msgs) },
	});
	try {
		vm.runInContext(text, context, { filename: file });
	} catch (e) {
		fail(`${file}: does not run: ${e.stack}`);
	}
	check(calls.length === 1,
	      `${file}: data.receiveData called ${calls.length} times, want 1`);
	return calls[0];
}

const SRCLOC = /^.+:\d+:\d+$/;

function checkMetadata(m) {
	check(m && m.type === 'metadata',
	      `first message is not metadata: ${JSON.stringify(m)}`);
	for (const k of ['form', 'name', 'source', 'time'])
		check(typeof m[k] === 'string',
		      `metadata.${k} is not a string: ${JSON.stringify(m[k])}`);
	check(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(m.time),
	      `metadata.time ${JSON.stringify(m.time)} is not ` +
	      'YYYY-MM-DD HH:MM:SS');
	check(m.version === 1, `metadata.version ${m.version}, want 1`);
}

function checkSrcloc(e, k) {
	const v = e[k];
	check(v === false || (typeof v === 'string' && SRCLOC.test(v)),
	      `event ${e.id}: ${k} ${JSON.stringify(v)} is neither false ` +
	      'nor FILE:LINE:COL');
}

function checkSignature(e, k) {
	check(e[k] && Array.isArray(e[k].signature),
	      `event ${JSON.stringify(e).slice(0, 200)}: ${k}.signature is ` +
	      'not a list');
}

/* The metrics of event e as integers (see the top of the file). */
function readMetrics(e, names, space, i) {
	const m = e.metrics;
	check(m && typeof m === 'object', `event #${i}: no metrics`);
	const keys = Object.keys(m).sort();
	check(JSON.stringify(keys) === JSON.stringify(names),
	      `event #${i}: metrics ${keys}, want ${names}`);
	const out = {};
	for (const k of names) {
		check(typeof m[k] === 'number' && isFinite(m[k]) && m[k] >= 0,
		      `event #${i}: metric ${k} = ${m[k]}`);
		out[k] = k === 'time' && !space ? Math.round(m[k] * 1e6) : m[k];
		check(Number.isSafeInteger(out[k]),
		      `event #${i}: metric ${k} = ${m[k]} is not whole ` +
		      (k === 'time' && !space ? 'nanoseconds' : 'units'));
	}
	if (space)
		check(out.time === out.bytes,
		      `event #${i}: time ${out.time} != bytes ${out.bytes} ` +
		      'in a space profile');
	return out;
}

function sub(a, b) {
	const r = {};
	for (const k in a)
		r[k] = a[k] - b[k];
	return r;
}

function addTo(acc, v) {
	for (const k in v)
		acc[k] = (acc[k] || 0) + v[k];
}

/* Walks the events, checking them; returns the calls as a tree. */
function readCallgraph(events) {
	check(Array.isArray(events) && events.length > 0,
	      'callgraph.events is not a non-empty list');
	const first = events[0].metrics || {};
	const names = Object.keys(first).sort();
	check(names.includes('time'), 'the metrics have no time');
	check(names.includes('samples'), 'the metrics have no samples');
	const space = names.includes('bytes');
	const ids = new Set();
	const stack = [];
	let prev = null, root = null, calls = 0, sources = 0, callsites = 0;

	events.forEach((e, i) => {
		const m = readMetrics(e, names, space, i);
		if (prev)
			for (const k of names)
				check(m[k] >= prev[k],
				      `event #${i}: ${k} goes back from ` +
				      `${prev[k]} to ${m[k]}`);
		prev = m;
		if (e.type === 'ENTER') {
			check(typeof e.function === 'string',
			      `event #${i}: function ${e.function}`);
			check(Number.isInteger(e.id) && e.id >= 0,
			      `event #${i}: id ${e.id}`);
			check(!ids.has(e.id), `event #${i}: id ${e.id} again`);
			ids.add(e.id);
			checkSrcloc(e, 'callsite');
			checkSrcloc(e, 'source');
			sources += e.source !== false;
			callsites += e.callsite !== false;
			checkSignature(e, 'inputs');
			const call = { name: e.function, enter: m,
				       children: [] };
			if (stack.length)
				stack[stack.length - 1].children.push(call);
			else {
				check(root === null,
				      `event #${i}: a second outermost call`);
				root = call;
			}
			stack.push(call);
			calls++;
		} else if (e.type === 'EXIT') {
			check(stack.length > 0,
			      `event #${i}: EXIT without an ENTER`);
			checkSignature(e, 'outputs');
			stack.pop().exit = m;
		} else {
			fail(`event #${i}: type ${JSON.stringify(e.type)}`);
		}
	});
	check(stack.length === 0, `${stack.length} calls never exit`);
	return { root, calls, names, space, sources, callsites };
}

function summarize(cg) {
	const nodes = [], functions = {};
	let rootSum = null;

	/* active[name]: activations of name on the current path. */
	const active = {};
	function visit(call, path) {
		const incl = sub(call.exit, call.enter);
		const excl = Object.assign({}, incl);
		for (const c of call.children) {
			const ci = sub(c.exit, c.enter);
			for (const k in excl)
				excl[k] -= ci[k];
		}
		const p = call === cg.root ? [] : path.concat(call.name);
		for (const k in excl)
			check(excl[k] >= 0, `${[call.name].concat(p).join(' > ')}` +
			      `: exclusive ${k} ${excl[k]} < 0`);
		if (call === cg.root) {
			rootSum = { incl, excl };
		} else {
			nodes.push({ path: p, incl, excl });
			const f = functions[call.name] ||
				(functions[call.name] = { incl: {}, excl: {} });
			if (!active[call.name])
				addTo(f.incl, incl);
			addTo(f.excl, excl);
			active[call.name] = (active[call.name] || 0) + 1;
		}
		for (const c of call.children)
			visit(c, p);
		if (call !== cg.root)
			active[call.name]--;
	}
	visit(cg.root, []);
	return {
		kind: cg.space ? 'space' : 'time',
		calls: cg.calls,
		sources: cg.sources,
		callsites: cg.callsites,
		metrics: cg.names,
		root: rootSum,
		nodes,
		functions,
	};
}

function main() {
	const args = process.argv.slice(2);
	const bare = args[0] === '--bare';
	const file = bare ? args[1] : args[0];
	check(file, 'usage: sympro-check.js [--bare] FILE');
	const msgs = readMessages(file, bare);
	check(Array.isArray(msgs), 'the messages are not a list');
	check(msgs.length === 2,
	      `${msgs.length} messages, want metadata and callgraph`);
	checkMetadata(msgs[0]);
	check(msgs[1].type === 'callgraph',
	      `second message is ${JSON.stringify(msgs[1].type)}`);
	const cg = readCallgraph(msgs[1].events);
	const s = summarize(cg);
	s.metadata = msgs[0];
	process.stdout.write(JSON.stringify(s) + '\n');
}

main();
