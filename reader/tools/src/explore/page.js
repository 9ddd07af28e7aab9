/* slangpack explore. Everything from the package is data: it is only ever put in the page
   through textContent, setAttribute and DOM nodes, never parsed as markup. */
(function () {
  'use strict';
  var DATA = JSON.parse(document.getElementById('slangpack-data').textContent);
  var DIFF = DATA.mode === 'diff';
  var NEW = DIFF ? DATA['new'] : DATA['package'];
  var OLD = DIFF ? DATA.old : null;
  var LIST_LIMIT = 500;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) { continue; }
      parent.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
    }
    return parent;
  }
  function data(e, attrs) {
    Object.keys(attrs).forEach(function (k) { e.setAttribute('data-' + k, String(attrs[k])); });
    return e;
  }
  function pct(x, total) { return (total > 0 ? (100 * x / total) : 0) + '%'; }
  function place(e, offset, size, total) {
    e.style.left = pct(offset, total);
    e.style.width = pct(Math.max(size, 0), total);
    return e;
  }
  function countText(c) { return typeof c === 'number' ? String(c) : String(c); }
  function chips(names) {
    var s = el('span', 'chips');
    (names || []).forEach(function (n) { add(s, el('span', 'chip ' + String(n).replace(/[^a-z_]/g, ''), n)); });
    return s;
  }
  function table(headers, rows, cls, rowData) {
    var t = el('table', cls || '');
    var tr = el('tr');
    headers.forEach(function (h) { add(tr, el('th', '', h)); });
    add(t, tr);
    rows.forEach(function (r, i) {
      var row = el('tr', 'row');
      if (rowData) { data(row, rowData(i)); }
      r.forEach(function (c) {
        var td = el('td', 'mono');
        if (c !== null && typeof c === 'object') { add(td, c); } else { td.textContent = c === null || c === undefined ? '' : String(c); }
        add(row, td);
      });
      add(t, row);
    });
    return t;
  }

  var params = new URLSearchParams(location.hash.replace(/^#/, ''));
  var hover = el('div', '');
  hover.id = 'hover';
  function showHover(text) { hover.textContent = text; hover.style.display = 'block'; }
  function hideHover() { hover.style.display = 'none'; }
  function hoverable(e, text) {
    e.setAttribute('title', text);
    e.addEventListener('mouseenter', function () { showHover(text); });
    e.addEventListener('mouseleave', hideHover);
    return e;
  }

  /* Entries by key, and differences by entry. */
  /* An entry is its own part (key, entry points, ...) and a layout document it may share with
     thousands of permutations; the two are joined when the entry is shown. */
  function Entries(doc) {
    this.doc = doc;
    this.index = new Map();
    var index = this.index;
    (doc ? doc.entries : []).forEach(function (e, i) { index.set(e.key, i); });
  }
  Entries.prototype.has = function (k) { return this.index.has(k); };
  Entries.prototype.get = function (k) {
    if (!this.index.has(k)) { return undefined; }
    var own = this.doc.entries[this.index.get(k)];
    var entry = Object.assign({}, this.doc.layouts[own.layout] || {});
    Object.keys(own).forEach(function (f) { entry[f] = own[f]; });
    return entry;
  };
  Entries.prototype.forEach = function (f) { this.index.forEach(function (_, k) { f(null, k); }); };
  Entries.prototype.keys = function () { return this.index.keys(); };
  function byKey(doc) { return new Entries(doc); }
  var newEntries = byKey(NEW);
  var oldEntries = byKey(OLD);
  var keys = Array.from(newEntries.keys());
  oldEntries.forEach(function (_, k) { if (!newEntries.has(k)) { keys.push(k); } });
  keys.sort();
  var diffsByEntry = new Map();
  (DIFF ? DATA.differences : []).forEach(function (d) {
    if (!diffsByEntry.has(d.entry)) { diffsByEntry.set(d.entry, []); }
    diffsByEntry.get(d.entry).push(d);
  });

  /* The page frame. */
  var header = el('header');
  var version = NEW ? NEW.format_version.join('.') : '';
  add(header, el('h1', '', DIFF ? 'slangpack explore --diff' : 'slangpack explore'),
    el('span', 'mono', DATA.title),
    el('span', 'muted', keys.length + ' entries, format ' + version +
      (DIFF ? ', ' + DATA.differences.length + ' differences' : '')));
  var nav = el('nav');
  var filter = el('input');
  filter.id = 'filter';
  filter.setAttribute('type', 'search');
  filter.setAttribute('placeholder', 'filter entries');
  filter.value = params.get('filter') || '';
  var matchCount = el('div', 'muted');
  matchCount.id = 'match-count';
  var list = el('ul');
  list.id = 'entries';
  add(nav, filter, matchCount, list);
  var main = el('main');
  main.id = 'detail';
  add(document.body, header, nav, main, hover);

  var selected = params.get('entry');
  function renderList() {
    var f = filter.value.toLowerCase();
    var matches = keys.filter(function (k) { return k.toLowerCase().indexOf(f) >= 0; });
    if (DIFF && params.get('changed') === '1') {
      matches = matches.filter(function (k) { return diffsByEntry.has(k); });
    }
    list.textContent = '';
    matchCount.textContent = matches.length + ' of ' + keys.length + ' entries';
    var shownKeys = matches.slice(0, LIST_LIMIT);
    if (selected !== null && keys.includes(selected) && !shownKeys.includes(selected)) { shownKeys.unshift(selected); }
    shownKeys.forEach(function (k) {
      var li = el('li');
      var b = data(el('button', k === selected ? 'selected' : '', k), { key: k });
      if (DIFF && diffsByEntry.has(k)) {
        var ds = diffsByEntry.get(k);
        var kind = !newEntries.has(k) ? 'removed' : !oldEntries.has(k) ? 'added' : 'changed';
        b.classList.add('diff-' + kind);
        b.setAttribute('data-diff', kind);
        add(b, el('span', 'badge', ds.length));
      }
      b.addEventListener('click', function () { selected = k; renderList(); renderEntry(); });
      add(list, add(li, b));
    });
    if (matches.length > LIST_LIMIT) {
      add(list, el('li', 'muted', (matches.length - LIST_LIMIT) + ' more: narrow the filter'));
    }
    if (selected === null || !keys.includes(selected)) {
      if (matches.length > 0) { selected = matches[0]; renderList(); }
    }
    return matches;
  }
  filter.addEventListener('input', function () { renderList(); renderEntry(); });

  /* Diff marks: subject -> 'added' | 'removed' | 'changed', with the properties that changed. */
  function marks(key) {
    var m = new Map();
    (diffsByEntry.get(key) || []).forEach(function (d) {
      var prev = m.get(d.subject);
      m.set(d.subject, { change: prev && prev.change !== d.change ? 'changed' : d.change,
        props: (prev ? prev.props : []).concat(d.property ? [d.property] : []) });
    });
    return m;
  }
  function mark(e, subject, m) {
    var x = m.get(subject);
    if (x) { e.classList.add('diff-' + x.change); e.setAttribute('data-diff', x.change); }
    return e;
  }

  function renderEntry() {
    main.textContent = '';
    hideHover();
    if (selected === null) { add(main, el('p', 'empty', 'No entry matches.')); return; }
    var entry = newEntries.get(selected) || oldEntries.get(selected);
    var old = oldEntries.get(selected) || null;
    var m = marks(selected);
    var h = add(el('h2', '', selected));
    if (DIFF) { mark(h, 'entry', m); }
    add(main, h);
    if (!entry) { return; }
    add(main, el('div', 'muted', 'options ' + entry.options_hash + ', ' + entry.set_slot_count + ' set slots'));
    if (DIFF) { renderChanges(selected); }
    currentTargets = entry.target_bindings || {};
    renderEntryPoints(entry, m);
    renderPipelines(entry, old, m);
    renderBuffers(entry, old, m);
    renderIo(entry, m);
    renderTargets(entry, m);
  }

  function renderChanges(key) {
    var ds = diffsByEntry.get(key) || [];
    add(main, el('h3', '', 'Changes (' + ds.length + ')'));
    if (ds.length === 0) { add(main, el('p', 'empty', 'Bindings and layouts match.')); return; }
    var ul = el('ul', 'changes');
    ul.id = 'changes';
    ds.forEach(function (d) {
      var text = d.change === 'changed'
        ? d.subject + ' ' + (d.property || 'value') + ': ' + d.before + ' \u2192 ' + d.after
        : (d.change === 'added' ? '+ ' : '- ') + d.subject + ((d.after || d.before) ? ' (' + (d.after || d.before) + ')' : '');
      add(ul, data(el('li', 'diff-' + d.change, text), { subject: d.subject }));
    });
    add(main, ul);
  }

  function renderEntryPoints(entry, m) {
    add(main, el('h3', '', 'Entry points'));
    var rows = entry.entry_points.map(function (ep) {
      var targets = el('span');
      (ep.targets || []).forEach(function (t) { add(targets, el('span', 'chip', t.target + ' ' + t.bytes + ' B')); });
      var name = mark(el('span', '', ep.name), 'entry point ' + ep.name, m);
      var tg = ep.thread_group_size.join(' \u00d7 ');
      return [name, chips([ep.stage]), ep.spirv_entry, (ep.spirv_words * 4) + ' B', targets,
        ep.thread_group_size[0] ? tg : '', ep.wave_size === null ? '' : ep.wave_size];
    });
    var t = table(['name', 'stage', 'SPIR-V entry', 'SPIR-V', 'targets', 'threads', 'wave'], rows, 'entry-points');
    t.id = 'entry-points';
    add(main, t);
  }

  /* Pipelines: the entry points picked (all by default, or the hash's pipeline=a,b). */
  function renderPipelines(entry, old, m) {
    add(main, el('h3', '', 'Pipeline layout'));
    var names = entry.entry_points.map(function (ep) { return ep.name; });
    var wanted = params.get('pipeline');
    var picked = new Set(wanted ? wanted.split(',').filter(function (n) { return names.includes(n); }) : names);
    if (picked.size === 0) { picked = new Set(names); }
    var picker = el('div', 'pipeline-picker');
    var body = el('div');
    names.forEach(function (n) {
      var label = el('label');
      var box = el('input');
      box.setAttribute('type', 'checkbox');
      data(box, { ep: n });
      box.checked = picked.has(n);
      box.addEventListener('change', function () {
        if (box.checked) { picked.add(n); } else { picked.delete(n); }
        draw();
      });
      add(picker, add(label, box, ' ' + n));
    });
    add(main, el('div', 'muted', 'Entry points in the pipeline:'), picker, body);
    function draw() {
      body.textContent = '';
      drawPipeline(body, entry, old, m, picked, names.length);
    }
    draw();
  }

  function stageOf(entry) {
    var s = new Map();
    entry.entry_points.forEach(function (ep) { s.set(ep.name, ep.stage); });
    return s;
  }
  function inPipeline(users, picked, whole) {
    if (whole) { return true; }
    return (users || []).some(function (n) { return picked.has(n); });
  }
  function pipelineStages(thing, entry, picked, whole) {
    if (whole) { return thing.stages; }
    var stages = stageOf(entry);
    var out = [];
    (thing.entry_points || []).forEach(function (n) {
      if (picked.has(n) && !out.includes(stages.get(n))) { out.push(stages.get(n)); }
    });
    return out;
  }
  function bindingSubject(b) {
    return 'binding ' + (b.implicit === 'global_uniform_buffer' ? '(global uniforms)' : b.path);
  }

  function drawPipeline(body, entry, old, m, picked, total) {
    var whole = picked.size === total;
    var shown = entry.bindings.filter(function (b) { return inPipeline(b.entry_points, picked, whole); })
      .map(function (b) { return { b: b, removed: false }; });
    if (old && DIFF) {
      old.bindings.forEach(function (b) {
        var x = m.get(bindingSubject(b));
        if (x && x.change === 'removed') { shown.push({ b: b, removed: true }); }
      });
    }
    var slots = Math.max(entry.set_slot_count, 0);
    shown.forEach(function (s) { slots = Math.max(slots, s.b.set + 1); });
    var grid = el('div', 'grid');
    grid.id = 'bindings';
    if (slots === 0) { add(grid, el('p', 'empty', 'No descriptor sets.')); }
    for (var set = 0; set < slots; set++) {
      var row = data(el('div', 'set-row'), { set: set });
      add(row, el('div', 'set-label', 'set ' + set));
      var here = shown.filter(function (s) { return s.b.set === set; });
      var top = -1;
      here.forEach(function (s) { top = Math.max(top, s.b.binding); });
      if (top < 0) { add(row, data(el('div', 'cell hole', 'empty set'), { set: set })); }
      for (var binding = 0; binding <= top; binding++) {
        var at = here.filter(function (s) { return s.b.binding === binding; });
        if (at.length === 0) {
          add(row, data(el('div', 'cell hole', 'binding ' + binding + ': hole'), { set: set, binding: binding }));
          continue;
        }
        var cell = data(el('div', 'cell'), { set: set, binding: binding });
        at.forEach(function (s) { add(cell, bindingBlock(s.b, s.removed, entry, picked, whole, m)); });
        add(row, cell);
      }
      add(grid, row);
    }
    add(body, grid);
    drawPushConstants(body, entry, picked, whole, m);
  }

  function bindingBlock(b, removed, entry, picked, whole, m) {
    var e = data(el('div', 'binding' + (b.used ? '' : ' unused')),
      { path: b.path, kind: b.kind, set: b.set, binding: b.binding });
    if (removed) { e.classList.add('diff-removed'); e.setAttribute('data-diff', 'removed'); } else { mark(e, bindingSubject(b), m); }
    var count = el('span', b.count === 'unbounded' ? 'unbounded' : '', b.count === 'unbounded' ? '[unbounded]' : (b.count === 1 ? '' : '[' + b.count + ']'));
    add(e, add(el('div'), el('span', 'num', b.binding + ' '), el('span', 'kind', b.kind), ' ', count),
      el('div', 'path', b.path),
      chips(removed ? b.stages : pipelineStages(b, entry, picked, whole)));
    var notes = [];
    if (b.implicit) { notes.push(b.implicit.replace(/_/g, ' ')); }
    if (b.image_format) { notes.push(b.image_format); }
    if (b.sampler_path) { notes.push('sampler ' + b.sampler_path); }
    if (b.input_attachment_index !== null && b.input_attachment_index !== undefined) { notes.push('input attachment ' + b.input_attachment_index); }
    if (!b.used) { notes.push('unused'); }
    if (notes.length) { add(e, el('div', 'muted', notes.join(', '))); }
    hoverable(e, b.path + '\nset ' + b.set + ' binding ' + b.binding + '\n' + b.kind + ' count ' + countText(b.count) +
      '\nSPIR-V name ' + b.spirv_name + '\nused by ' + (b.entry_points.join(', ') || 'none'));
    return e;
  }

  function drawPushConstants(body, entry, picked, whole, m) {
    var ranges = entry.push_constants.filter(function (p) { return inPipeline(p.entry_points, picked, whole); });
    add(body, el('h4', '', 'Push constants'));
    if (ranges.length === 0) { add(body, el('p', 'empty', 'None.')); return; }
    var end = 0;
    ranges.forEach(function (p) { end = Math.max(end, p.offset + p.size); });
    var stages = [];
    ranges.forEach(function (p) {
      pipelineStages(p, entry, picked, whole).forEach(function (s) { if (!stages.includes(s)) { stages.push(s); } });
    });
    var wrap = el('div');
    wrap.id = 'push-constants';
    var scale = ruler(end);
    scale.classList.add('axis-scale');
    add(wrap, add(el('div', 'axis-row'), el('div', 'stage-name'), scale));
    stages.forEach(function (s) {
      var axis = el('div', 'axis');
      ranges.forEach(function (p) {
        if (!pipelineStages(p, entry, picked, whole).includes(s)) { return; }
        var r = data(place(el('div', 'pc-range', p.name + ' ' + p.offset + '..' + (p.offset + p.size)), p.offset, p.size, end),
          { name: p.name, offset: p.offset, size: p.size, stage: s });
        mark(r, 'push constants ' + p.name, m);
        hoverable(r, p.name + '\noffset ' + p.offset + ' size ' + p.size + '\nstages ' + p.stages.join(', '));
        add(axis, r);
      });
      add(wrap, add(el('div', 'axis-row'), add(el('div', 'stage-name'), chips([s])), axis));
    });
    add(body, wrap);
  }

  function ruler(size) {
    var r = el('div', 'ruler');
    if (size <= 0) { return r; }
    var step = 4;
    while (size / step > 32) { step *= 2; }
    for (var x = 0; x <= size; x += step) {
      var t = place(el('div', 'tick'), x, 0, size);
      add(t, el('span', '', x));
      add(r, t);
    }
    return r;
  }

  /* Buffers to scale. Offsets of members inside an array of structs are relative to its
     element; they are drawn in the first element. */
  function layoutMembers(buffer) {
    var ms = buffer.members;
    var abs = [], depth = [], children = ms.map(function () { return 0; });
    ms.forEach(function (mem, i) {
      var p = mem.parent;
      depth[i] = p === null || p === undefined || p >= i ? 0 : depth[p] + 1;
      if (p !== null && p !== undefined && p < i) { children[p]++; }
      var base = 0;
      if (mem.element_relative) {
        var q = p;
        while (q !== null && q !== undefined && q < i) {
          if (ms[q].array_stride !== undefined) { base = abs[q]; break; }
          q = ms[q].parent;
        }
      }
      abs[i] = base + mem.offset;
    });
    return { abs: abs, depth: depth, children: children };
  }
  function elementCount(mem) { return typeof mem.array_count === 'number' ? mem.array_count : 1; }
  function arrayAncestors(buffer, i) {
    var out = [];
    var q = buffer.members[i].parent;
    while (q !== null && q !== undefined && q < i) {
      var a = buffer.members[q];
      if (a.array_stride !== undefined) { out.push(a); }
      q = a.parent;
    }
    return out;
  }
  var SCALAR_SIZES = { bool: 4, int: 4, uint: 4, float: 4, half: 2, double: 8, int8_t: 1, uint8_t: 1,
    int16_t: 2, uint16_t: 2, float16_t: 2, int32_t: 4, uint32_t: 4, float32_t: 4, int64_t: 8, uint64_t: 8, float64_t: 8 };
  /* The scalar's size of a vector or scalar type as the dump spells it (float3[2] -> 4). */
  function scalarSize(type) {
    var m = /^[a-z]+(?:\d+_t)?/.exec(type || '');
    return m && Object.prototype.hasOwnProperty.call(SCALAR_SIZES, m[0]) ? SCALAR_SIZES[m[0]] : 0;
  }
  function padding(buffer, lay) {
    var covered = [];
    buffer.members.forEach(function (mem, i) {
      if (lay.children[i] > 0) { return; }
      var n = elementCount(mem), stride = mem.array_stride || 0;
      var elem = n > 1 && stride ? mem.size - (n - 1) * stride : mem.size;
      if (elem <= 0 || elem > stride && n > 1) { elem = n > 1 ? stride : mem.size; }
      var scalar = scalarSize(mem.type);
      if (stride && mem.rows && mem.columns && !mem.matrix_layout && scalar) {
        elem = Math.min(stride, mem.rows * mem.columns * scalar);
      }
      var starts = [lay.abs[i]];
      if (mem.element_relative) {
        arrayAncestors(buffer, i).slice(0, 1).forEach(function (a) {
          var k = Math.min(elementCount(a), 256), out = [];
          starts.forEach(function (s) { for (var j = 0; j < k; j++) { out.push(s + j * a.array_stride); } });
          starts = out;
        });
      }
      starts.forEach(function (s) {
        for (var j = 0; j < Math.min(n, 256); j++) { covered.push([s + j * stride, s + j * stride + elem]); }
      });
    });
    covered.sort(function (a, b) { return a[0] - b[0]; });
    var pads = [], at = 0;
    covered.forEach(function (c) {
      if (c[0] > at) { pads.push([at, c[0] - at]); }
      at = Math.max(at, c[1]);
    });
    if (buffer.size > at && covered.length > 0) { pads.push([at, buffer.size - at]); }
    return pads;
  }
  function lookupPath(buffer, mem) { return buffer.path ? buffer.path + '.' + mem.path : mem.path; }
  function memberSubject(buffer, mem) {
    return 'member ' + (buffer.path ? buffer.path + '.' + mem.path : mem.path);
  }

  /* What each further target makes of a buffer with a descriptor: the Vulkan member layout
     (checked against the target's code at bake time) or none the package holds. */
  var currentTargets = {};
  function targetLayouts(buffer) {
    if (buffer.set === null || buffer.set === undefined) { return []; }
    var out = [];
    Object.keys(currentTargets).forEach(function (t) {
      currentTargets[t].forEach(function (b) {
        if (b.vulkan && b.vulkan[0] === buffer.set && b.vulkan[1] === buffer.binding && b.member_layout) {
          out.push(t + ' ' + (b.place || '') + ': ' + (b.member_layout === 'vulkan' ? 'these offsets' : 'no member layout in the package'));
        }
      });
    });
    return out;
  }
  /* What a pointer or descriptor-handle member leads to (`pointee`, an index into the
     entry's buffers): named on the member, so the layout behind it can be found below. */
  function pointeeName(buffers, mem) {
    var p = mem.pointee !== undefined ? buffers[mem.pointee] : undefined;
    return p ? p.path : null;
  }
  function drawBuffer(buffer, m, side, buffers) {
    var box = data(el('div', 'buffer'), { path: buffer.path, size: buffer.size });
    var name = buffer.path || '(global uniforms)';
    var h = el('h4', '', name + ' ');
    if (!side) { mark(h, 'buffer ' + name, m); }
    add(h, el('span', 'meta', buffer.kind + ', ' + buffer.size + ' bytes, alignment ' + buffer.alignment +
      (buffer.set !== null && buffer.set !== undefined ? ', set ' + buffer.set + ' binding ' + buffer.binding : '') +
      (buffer.kind === 'structured_element' || buffer.stride !== buffer.size && (buffer.kind === 'pointee' || buffer.kind === 'heap') ? ', stride ' + buffer.stride : '')));
    add(box, h);
    var onTargets = targetLayouts(buffer);
    if (onTargets.length) { add(box, el('div', 'muted target-layouts', onTargets.join('; '))); }
    if (side) { add(box, el('div', 'side-label', side === 'old' ? 'before' : 'after')); }
    var total = Math.max(buffer.size, 1);
    buffer.members.forEach(function (mem) { total = Math.max(total, mem.offset + mem.size); });
    var lay = layoutMembers(buffer);
    var maxDepth = 0;
    lay.depth.forEach(function (d) { maxDepth = Math.max(maxDepth, d); });
    add(box, ruler(total));
    var tracks = [];
    for (var d = 0; d <= maxDepth; d++) { tracks.push(el('div', 'track')); }
    buffer.members.forEach(function (mem, i) {
      var leaf = lay.children[i] === 0;
      var cls = 'member' + (leaf ? '' : ' struct') + (mem.array_stride !== undefined ? ' array' : '');
      var target = pointeeName(buffers || [], mem);
      var label = mem.path.split('.').pop() + (target !== null ? ' \u2192 ' + target : '');
      var e = data(place(el('div', cls, label), lay.abs[i], mem.size, total),
        { path: mem.path, offset: lay.abs[i], size: mem.size, type: mem.type });
      var subject = memberSubject(buffer, mem);
      var x = m.get(subject);
      if (x && side) { e.classList.add(side === 'old' ? 'diff-old' : 'diff-new'); e.setAttribute('data-diff', side); }
      else if (x && !side) { mark(e, subject, m); }
      var n = elementCount(mem);
      if (mem.array_stride !== undefined && mem.size > 0) {
        for (var j = 1; j < Math.min(n, 256); j++) {
          add(e, data(place(el('div', 'elem'), j * mem.array_stride, 0, mem.size), { element: j }));
        }
      }
      if (mem.matrix_stride && mem.size > 0) {
        for (var k = mem.matrix_stride; k < mem.size; k += mem.matrix_stride) {
          add(e, place(el('div', 'mstride'), k, 0, mem.size));
        }
      }
      var info = lookupPath(buffer, mem) + '\n' + mem.type + '\noffset ' + lay.abs[i] +
        (mem.element_relative ? ' (element ' + mem.offset + ')' : '') + ', size ' + mem.size + ', alignment ' + mem.alignment +
        (mem.array_stride !== undefined ? '\narray ' + countText(mem.array_count) + ', stride ' + mem.array_stride : '') +
        (mem.matrix_layout ? '\n' + mem.matrix_layout.replace('_', ' ') + ', matrix stride ' + mem.matrix_stride : '') +
        (mem['default'] !== undefined ? '\ndefault ' + mem['default'] : '') +
        (target !== null ? '\npoints at ' + target : '') +
        (mem.conformance ? '\n' + mem.conformance.interface + ' conformance id ' + mem.conformance.id +
          ' (write it into witnessId.x)' : '') +
        (x ? '\n' + x.change + (x.props.length ? ': ' + x.props.join(', ') : '') : '');
      hoverable(e, info);
      add(tracks[lay.depth[i]], e);
    });
    if (buffer.members.length === 0) {
      add(tracks[0], data(place(el('div', 'member', buffer.kind === 'structured_element' ? 'element' : '(no members)'), 0, buffer.size, total),
        { path: '', offset: 0, size: buffer.size, type: buffer.kind }));
    }
    tracks.forEach(function (t) { add(box, t); });
    var padTrack = el('div', 'track pads');
    padding(buffer, lay).forEach(function (p) {
      add(padTrack, hoverable(data(place(el('div', 'pad'), p[0], p[1], total), { offset: p[0], size: p[1] }),
        'padding: ' + p[1] + ' bytes at ' + p[0]));
    });
    add(box, padTrack);
    return box;
  }

  function renderBuffers(entry, old, m) {
    add(main, el('h3', '', 'Buffers'));
    var wrap = el('div');
    wrap.id = 'buffers';
    if (entry.buffers.length === 0) { add(wrap, el('p', 'empty', 'None.')); }
    var oldBuffers = new Map();
    (old ? old.buffers : []).forEach(function (b) { oldBuffers.set(b.path, b); });
    entry.buffers.forEach(function (b) {
      var changed = b.members.some(function (mem) { return m.has(memberSubject(b, mem)); });
      var before = oldBuffers.get(b.path);
      if (DIFF && before && newEntries.has(entry.key)) {
        var beforeChanged = before.members.some(function (mem) { return m.has(memberSubject(before, mem)); });
        if (changed || beforeChanged) {
          add(wrap, drawBuffer(before, m, 'old', old.buffers), drawBuffer(b, m, 'new', entry.buffers));
          return;
        }
      }
      add(wrap, drawBuffer(b, m, null, entry.buffers));
    });
    add(main, wrap);
  }

  function renderIo(entry, m) {
    var vi = entry.vertex_inputs || [];
    if (vi.length) {
      add(main, el('h3', '', 'Vertex inputs'));
      add(main, table(['entry point', 'location', 'name', 'format', 'semantic', 'locations', 'used'],
        vi.map(function (v) {
          return [v.entry_point, mark(el('span', '', v.location), 'vertex input ' + v.entry_point + ' location ' + v.location, m),
            v.name, v.format === null ? '' : v.format, v.semantic + v.semantic_index, v.location_count, v.used ? 'yes' : 'no'];
        }), 'vertex-inputs', function (i) {
          return { ep: vi[i].entry_point || '', location: vi[i].location, format: vi[i].format === null ? '' : vi[i].format };
        }));
    }
    var fo = entry.fragment_outputs || [];
    if (fo.length) {
      add(main, el('h3', '', 'Fragment outputs'));
      add(main, table(['entry point', 'location', 'index', 'name', 'type'], fo.map(function (o) {
        return [o.entry_point, o.location, o.index, o.name, o.scalar + (o.components > 1 ? o.components : '')];
      }), 'fragment-outputs', function (i) {
        return { ep: fo[i].entry_point || '', location: fo[i].location, index: fo[i].index, type: fo[i].scalar + fo[i].components };
      }));
    }
    var em = (entry.execution_modes || []).filter(function (x) {
      return x.flags.length || x.input_primitive || x.output_primitive || x.output_vertices || x.spacing || x.invocations || x.output_primitives;
    });
    if (em.length) {
      add(main, el('h3', '', 'Execution modes'));
      add(main, table(['entry point', 'flags', 'input', 'output', 'vertices', 'primitives', 'invocations', 'spacing'], em.map(function (x) {
        return [x.entry_point, x.flags.join(', '), x.input_primitive, x.output_primitive, x.output_vertices || '',
          x.output_primitives || '', x.invocations || '', x.spacing];
      }), 'execution-modes', function (i) { return { ep: em[i].entry_point || '', flags: em[i].flags.join(' ') }; }));
    }
    var sc = entry.specialization_constants || [];
    if (sc.length) {
      add(main, el('h3', '', 'Specialization constants'));
      add(main, table(['id', 'name', 'default'], sc.map(function (c) {
        return [c.id, mark(el('span', '', c.name), 'specialization constant ' + c.name, m), c['default'] === null ? '' : c['default']];
      }), 'specialization-constants', function (i) { return { id: sc[i].id, name: sc[i].name }; }));
    }
    var sr = entry.shader_records || [];
    if (sr.length) {
      add(main, el('h3', '', 'Shader records'));
      add(main, table(['name', 'size', 'stages'], sr.map(function (r) { return [r.name, r.size, chips(r.stages)]; }), 'shader-records'));
    }
  }

  function renderTargets(entry, m) {
    var names = Object.keys(entry.target_bindings || {});
    if (!names.length) { return; }
    add(main, el('h3', '', 'Target bindings'));
    names.forEach(function (t) {
      add(main, el('h4', '', t));
      var rows = entry.target_bindings[t].map(function (b) {
        var name = data(el('span', 'target-binding', b.path), { target: t, path: b.path, place: b.place === null ? '' : b.place });
        return [mark(name, t + ' binding ' + b.path, m), b.kind, b.place === null ? '' : b.place,
          b.space === null ? '' : b.space, b.index === null ? '' : b.index, b.register_class || '',
          countText(b.count), b.code_name || '', b.vulkan ? 'set ' + b.vulkan[0] + ' binding ' + b.vulkan[1] : '',
          b.member_layout || '', b.flags.join(', ')];
      });
      var tb = table(['path', 'kind', 'place', 'space', 'index', 'class', 'count', 'name in code', 'Vulkan', 'members', 'flags'], rows, 'target-bindings');
      data(tb, { target: t });
      add(main, tb);
    });
  }

  renderList();
  renderEntry();
  document.body.setAttribute('data-rendered', 'yes');
})();
