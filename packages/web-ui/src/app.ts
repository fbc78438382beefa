// The page: header with the run badge, banners, the run picker, and four views. It only renders:
// every computation, parse and storage call goes to the engine worker.

import { proxy } from 'comlink';
import { h } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { DeviceStatus, RunSummary, RunUpdate, RunView } from './engine/api.ts';
import type { EngineHandle } from './engine/client.ts';
import { loggedRunState, positionText, type RunStateInfo } from './state/run-state.ts';
import { formatUrlState, parseUrlState, TAB_VIEWS, type UrlState, type ViewName } from './state/url-state.ts';
import { type Banner, Banners } from './views/banners.ts';
import { Compare } from './views/compare.ts';
import { Completions } from './views/completions.ts';
import { Dashboard } from './views/dashboard.ts';
import { Home } from './views/home.ts';
import { LAB_RUN_EVENT, type LabRunEvent } from './views/labs/lab-run-event.ts';
import { LazyGae, LazyLab, LazyMethodLab, LazyWalk } from './views/lazy-views.ts';
import { LoopOverview } from './views/loop-overview.ts';
import { type LiveStatus, Playground, type TransportCommand } from './views/playground.ts';
import { checkChoice } from './views/recipe-panel.ts';
import { ReplayOpen } from './views/replay-open.ts';
import { RunBadge } from './views/run-badge.ts';

/**
 * The page's default preset: tiny, whose first SFT point is on the chart within a second or two of
 * Play and whose whole run takes minutes on a laptop (docs/ui.md §15: feedback within two seconds). The
 * CLI's default is add-ppo-fast (core's DEFAULT_PRESET).
 */
export const PAGE_PRESET = 'tiny';

const TITLES: Record<ViewName, string> = {
  dashboard: 'Dashboard',
  completions: 'Completions',
  playground: 'Playground',
  loop: 'RL loop',
  compare: 'Compare',
  ppo: 'PPO clipping',
  groups: 'GRPO & RLOO',
  kto: 'KTO',
  distill: 'Distillation',
  monitor: 'Anti-hack monitor',
  compaction: 'Compaction',
  opid: 'OPID Δ',
  genac: 'Critic vs GenAC',
  'opid-lab': 'OPID lab',
  'genac-lab': 'GenAC lab',
  gae: 'GAE walkthrough',
  'antihack-lab': 'Anti-hack lab',
  'compaction-lab': 'Compaction lab',
  home: 'Home',
};

const NO_WEBGPU_TEXT =
  'Live training runs the kernels on WebGPU, and this browser gives the page no WebGPU device. Replays, the dashboard and the token strips work without it; the walkthroughs use the float64 references on the CPU instead of the kernels.';

type Bundled = { state: 'loading' } | { state: 'absent' } | { state: 'ready'; run: RunView } | { state: 'error'; message: string };

const message = (error: unknown) => String((error as Error)?.message ?? error);

function useBanners() {
  const [banners, setBanners] = useState<Banner[]>([]);
  const show = useCallback((banner: Banner) => setBanners((all) => [...all.filter((b) => b.id !== banner.id), banner]), []);
  const dismiss = useCallback((id: string) => setBanners((all) => all.filter((b) => b.id !== id)), []);
  return { banners, show, dismiss };
}

function EmptyRun({ bundled }: { bundled: Bundled }) {
  return h(
    'div',
    { class: 'empty', 'data-testid': 'empty-state' },
    h('h2', null, 'No run to show yet'),
    bundled.state === 'error'
      ? h('p', { class: 'error' }, `The replay that ships with this page could not be read: ${bundled.message}`)
      : h(
          'p',
          null,
          'A small replay of a real ',
          h('code', null, 'horizon train'),
          ' run will ship with this page; it is not there yet. Open the ',
          h('code', null, 'metrics.jsonl'),
          ' and ',
          h('code', null, 'samples.jsonl'),
          ' of a run directory (',
          h('code', null, 'runs/<recipe>-<time>/'),
          ') to browse it here. The GAE walkthrough and the playground work without a run.',
        ),
  );
}

function RunPicker(props: { runs: RunSummary[]; bundled: Bundled; current: RunView | null; onPick: (id: string) => void; onDelete: (id: string) => void }) {
  const { runs, bundled, current } = props;
  const options = [...(bundled.state === 'ready' ? [bundled.run.summary] : []), ...runs];
  if (options.length === 0) return null;
  return h(
    'div',
    { class: 'run-picker' },
    h(
      'label',
      null,
      'Run ',
      h(
        'select',
        { name: 'run', value: current?.summary.id ?? '', onChange: (e: Event) => props.onPick((e.target as HTMLSelectElement).value) },
        current ? null : h('option', { value: '' }, '—'),
        options.map((r) =>
          h(
            'option',
            { key: r.id, value: r.id },
            `${r.name} · ${r.source === 'bundled' ? 'shipped replay' : new Date(r.createdAt).toLocaleString()} · ${r.id === current?.summary.id ? current.records.length : r.metricsRows} rows`,
          ),
        ),
      ),
    ),
    current && current.summary.source !== 'bundled'
      ? h('button', { type: 'button', onClick: () => props.onDelete(current.summary.id), title: 'Delete this run from this browser' }, 'Delete')
      : null,
    current ? h('span', { class: 'note', 'data-testid': 'run-origin', title: current.summary.origin }, current.summary.origin) : null,
  );
}

/**
 * The view tabs (WAI-ARIA tabs pattern): one tab stop, ← → Home End move between tabs and open
 * them; Enter or Space on a tab moves focus into its panel, so the next Space reaches the
 * playground's Play rather than scrolling the page.
 */
function TabList({ view, onPick }: { view: ViewName; onPick: (v: ViewName) => void }) {
  const focusTab = (v: ViewName) => document.getElementById(`tab-${v}`)?.focus();
  const onKey = (e: KeyboardEvent) => {
    const i = TAB_VIEWS.indexOf(view);
    const to =
      e.key === 'ArrowRight'
        ? TAB_VIEWS[(i + 1) % TAB_VIEWS.length]
        : e.key === 'ArrowLeft'
          ? TAB_VIEWS[(i + TAB_VIEWS.length - 1) % TAB_VIEWS.length]
          : e.key === 'Home'
            ? TAB_VIEWS[0]
            : e.key === 'End'
              ? TAB_VIEWS[TAB_VIEWS.length - 1]
              : null;
    if (to) {
      e.preventDefault();
      // Every tab is in the DOM already, so focus moves now, with the selection, not a frame later.
      onPick(to);
      focusTab(to);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      const v = (e.target as HTMLElement).dataset.view as ViewName;
      onPick(v);
      requestAnimationFrame(() => document.getElementById(`panel-${v}`)?.focus());
    }
  };
  return h(
    'nav',
    { class: 'tabs', 'aria-label': 'Views' },
    h(
      'div',
      { role: 'tablist', 'aria-label': 'Views', onKeyDown: onKey },
      TAB_VIEWS.map((v) =>
        h(
          'a',
          {
            key: v,
            id: `tab-${v}`,
            href: `#${v}`,
            role: 'tab',
            'data-view': v,
            'aria-selected': view === v,
            'aria-controls': `panel-${v}`,
            // On the home page no tab is selected; the first one keeps the tab stop.
            tabIndex: view === v || (view === 'home' && v === TAB_VIEWS[0]) ? 0 : -1,
            onClick: (e: Event) => {
              e.preventDefault();
              onPick(v);
            },
          },
          TITLES[v],
        ),
      ),
    ),
  );
}

/** The state of the run on screen (a replay, a saved run), apart from the live run's badge, and Resume when it can. */
function ShownRunState(props: { info: RunStateInfo; live: boolean; resumable: boolean; busy: boolean; onResume: () => void }) {
  const { info } = props;
  return h(
    'div',
    { class: 'shown-state', 'data-testid': 'shown-state' },
    h(RunBadge, { info, scope: props.live ? 'live run' : 'this run', testId: 'run-badge' }),
    info.state === 'interrupted' || info.state === 'diverged' || info.state === 'failed'
      ? h('span', { class: 'note', 'data-testid': 'run-why' }, info.why)
      : null,
    props.resumable
      ? h(
          'button',
          { type: 'button', class: 'primary', disabled: props.busy, onClick: props.onResume, 'data-testid': 'resume-saved' },
          '▶ Resume from checkpoint',
        )
      : null,
  );
}

export function App({ engine }: { engine: EngineHandle }) {
  const [url, setUrl] = useState<UrlState>(() => parseUrlState(location.href, PAGE_PRESET));
  const [device, setDevice] = useState<DeviceStatus | null>(null);
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [bundled, setBundled] = useState<Bundled>({ state: 'loading' });
  const [current, setCurrent] = useState<RunView | null>(null);
  const [busy, setBusy] = useState(false);
  const [replayNote, setReplayNote] = useState<{ error: boolean; text: string } | null>(null);
  const { banners, show: showBanner, dismiss } = useBanners();
  const [live, setLive] = useState<LiveStatus | null>(null);
  const [labLive, setLabLive] = useState<LabRunEvent | null>(null);
  useEffect(() => {
    const onLab = (e: Event) => setLabLive((e as CustomEvent<LabRunEvent>).detail);
    addEventListener(LAB_RUN_EVENT, onLab);
    return () => removeEventListener(LAB_RUN_EVENT, onLab);
  }, []);
  const [transportBusy, setTransportBusy] = useState(false);
  /** The recipe choice whose kernels the worker has compiled (JSON), for the playground's note. */
  const [warm, setWarm] = useState<string | null>(null);
  /** The rollouts a chart click asked for ("rl:3"), until the next click. */
  const [picked, setPicked] = useState<string | null>(null);
  /** Runs loaded for the compare view, by id; the shipped PPO/GRPO/RLOO replays load on first open. */
  const [compareViews, setCompareViews] = useState<Map<string, RunView>>(new Map());
  const [shippedCompare, setShippedCompare] = useState<RunView[] | null>(null);

  const navigate = useCallback((patch: Partial<UrlState>, push = false) => {
    setUrl((old) => {
      const next = { ...old, ...patch };
      const href = formatUrlState(location.href, next);
      if (push) history.pushState(null, '', href);
      else history.replaceState(null, '', href);
      return next;
    });
  }, []);

  const storageBanner = useCallback((text: string) => showBanner({ id: 'storage', tone: 'error', title: 'Saved runs:', text }), [showBanner]);

  useEffect(() => {
    const noWebGpu = (line: string, remedy: string) =>
      showBanner({ id: 'no-webgpu', tone: 'warn', title: 'No WebGPU.', text: `${NO_WEBGPU_TEXT} (${line}) ${remedy}`.trim() });
    // The page's own navigator tells at once; the worker's attempt to open a device adds the remedy.
    const pageHasGpu = 'gpu' in navigator;
    if (!pageHasGpu) noWebGpu('this browser exposes no navigator.gpu', '');
    engine.onNotice(proxy((n) => storageBanner(n.message)));
    engine.device().then(
      (status) => {
        setDevice(status);
        if (status.kind === 'none') noWebGpu(pageHasGpu ? status.line : 'this browser exposes no navigator.gpu', status.remedy);
      },
      (error) => showBanner({ id: 'device', tone: 'error', title: 'GPU error:', text: message(error) }),
    );
    engine.bundledReplay(new URL('replay/manifest.json', document.baseURI).href).then(
      (run) => setBundled(run ? { state: 'ready', run } : { state: 'absent' }),
      (error) => setBundled({ state: 'error', message: message(error) }),
    );
    engine.listRuns().then(setRuns, (error) => {
      setRuns([]);
      storageBanner(message(error));
    });
    const onPop = () => setUrl(parseUrlState(location.href, PAGE_PRESET));
    addEventListener('popstate', onPop);
    addEventListener('hashchange', onPop);
    return () => {
      removeEventListener('popstate', onPop);
      removeEventListener('hashchange', onPop);
    };
  }, [engine, showBanner, storageBanner]);

  const shownId = useRef<string | undefined>(undefined);
  const show = useCallback((run: RunView) => {
    shownId.current = run.summary.id;
    setCurrent(run);
  }, []);
  const showById = useCallback(
    (id: string) => {
      if (id === shownId.current) return;
      if (id === 'bundled') {
        if (bundled.state === 'ready') show(bundled.run);
        return;
      }
      shownId.current = id;
      engine.loadRun(id).then(show, (error) => storageBanner(message(error)));
    },
    [engine, bundled, show, storageBanner],
  );

  // At start: the run in the URL, else the newest saved run, else the shipped replay. Later, only
  // a change of ?run= (a pick, back/forward) switches runs: an unsaved import stays on screen.
  const started = useRef(false);
  useEffect(() => {
    if (started.current || runs === null || bundled.state === 'loading') return;
    started.current = true;
    const first = url.run ?? runs[0]?.id ?? (bundled.state === 'ready' ? 'bundled' : undefined);
    if (first !== undefined) showById(first);
  }, [runs, bundled, url.run, showById]);
  useEffect(() => {
    if (started.current && url.run !== undefined) showById(url.run);
  }, [url.run, showById]);

  // Live batches: rows join the run on screen when it is the live run; the badge follows the state.
  const onUpdate = useMemo(
    () =>
      proxy((u: RunUpdate) => {
        setLive((old) =>
          old && old.runId === u.runId
            ? {
                runId: u.runId,
                choice: old.choice,
                state: u.state,
                position: u.position,
                ...(u.message ? { message: u.message } : {}),
                ...(old.pausing && u.state === 'running' ? { pausing: true } : {}),
              }
            : old,
        );
        if (u.records.length === 0 && u.samples.length === 0) return;
        setCurrent((c) => (c && c.summary.id === u.runId ? { ...c, records: [...c.records, ...u.records], samples: [...c.samples, ...u.samples] } : c));
      }),
    [],
  );
  const liveState = live?.state;
  useEffect(() => {
    // The run list gains the live run once its first rows are saved, and its counts as it goes.
    if (liveState && liveState !== 'running') engine.listRuns().then(setRuns, (error) => storageBanner(message(error)));
  }, [engine, liveState, storageBanner]);

  const command = async (c: TransportCommand) => {
    setTransportBusy(true);
    try {
      if (c.kind === 'pause') {
        // Pausing waits for the step in flight (an RL iteration takes seconds): say so at once.
        setLive((old) => (old && old.state === 'running' ? { ...old, pausing: true } : old));
        return await engine.pause();
      }
      if (c.kind === 'reset') {
        await engine.reset();
        setLive(null);
        // The saved run now says where Reset stopped it: show that, not the summary from its start.
        const id = live?.runId;
        if (id && shownId.current === id) engine.loadRun(id).then(show, (error) => storageBanner(message(error)));
        return;
      }
      // 'interrupted': a lab's run replaced this one in the worker (views/labs/live-lab.ts); Play starts afresh.
      if (!live || ['finished', 'diverged', 'failed', 'interrupted'].includes(live.state)) {
        const run = await engine.startTraining({ recipe: url.recipe, ...(url.seed !== undefined ? { seed: url.seed } : {}), sets: url.sets }, onUpdate);
        setLive({ runId: run.summary.id, state: 'paused', position: null, choice: { recipe: url.recipe, seed: url.seed, sets: url.sets } });
        show(run);
        navigate({ run: run.summary.id });
      }
      await engine.resume(c.kind === 'play' ? undefined : c.kind === 'step' ? 1 : c.steps);
    } catch (error) {
      showBanner({ id: 'training', tone: 'error', title: 'Training:', text: message(error) });
    } finally {
      setTransportBusy(false);
    }
  };

  // A saved live run that was interrupted (reload, closed tab, Reset) continues from its checkpoint.
  const resumeSaved = async (id: string) => {
    setTransportBusy(true);
    try {
      const run = await engine.resumeRun(id, onUpdate);
      const request = run.summary.request!;
      const position = run.summary.progress?.position ?? null;
      setLive({ runId: run.summary.id, state: 'paused', position, choice: { recipe: request.recipe, seed: request.seed, sets: request.sets } });
      show(run);
      navigate({ run: run.summary.id, recipe: request.recipe, seed: request.seed, sets: request.sets });
      await engine.resume();
    } catch (error) {
      showBanner({ id: 'training', tone: 'error', title: 'Resume:', text: message(error) });
    } finally {
      setTransportBusy(false);
    }
  };

  const openFiles = async (files: File[]) => {
    setBusy(true);
    setReplayNote(null);
    try {
      const outcome = await engine.importReplay(files.map((file) => ({ name: file.name, file })));
      show(outcome.run);
      if (outcome.storageProblem) storageBanner(`${outcome.storageProblem} The run is shown but will be gone after a reload.`);
      else {
        navigate({ run: outcome.run.summary.id });
        setRuns(await engine.listRuns());
      }
      setReplayNote(outcome.remarks.length ? { error: false, text: outcome.remarks.join(' ') } : null);
    } catch (error) {
      setReplayNote({ error: true, text: message(error) });
    } finally {
      setBusy(false);
    }
  };

  const deleteRun = async (id: string) => {
    try {
      await engine.deleteRun(id);
      const left = await engine.listRuns();
      shownId.current = undefined;
      setCurrent(null);
      setRuns(left);
      const next = left[0]?.id ?? (bundled.state === 'ready' ? 'bundled' : undefined);
      navigate({ run: next });
    } catch (error) {
      storageBanner(message(error));
    }
  };

  const isLive = live !== null && current?.summary.id === live.runId;
  const logged = useMemo(() => loggedRunState(current?.records, current?.summary, current?.recipe), [current]);
  // Two badges: the header's is the live run's (idle when nothing trains in this tab); the run bar's
  // is the run on screen, a replay or a saved run, so a shipped replay never reads as "training".
  // A lab's run is the worker's live run while it trains or waits paused (views/labs/lab-run.ts).
  const labActive = labLive !== null && (labLive.state === 'running' || labLive.state === 'paused');
  const liveBadge =
    live && !labActive
      ? { state: live.state, why: live.message ?? `Live run: ${live.state}${live.position ? ` at ${positionText(live.position)}` : ''}.` }
      : labLive
        ? { state: labLive.state, why: labLive.message ?? `The ${labLive.lab.toUpperCase()} lab’s run: ${labLive.state} at ${positionText(labLive.position)}.` }
        : { state: 'idle' as const, why: 'Nothing trains in this tab; Play in the Playground starts a live run.' };
  const shownBadge = isLive ? liveBadge : logged;
  const resumable = !isLive && current?.summary.source === 'live' && logged.state === 'interrupted' && device?.kind === 'gpu';
  const choice = useMemo(() => ({ recipe: url.recipe, seed: url.seed, sets: url.sets }), [url.recipe, url.seed, url.sets]);
  const recipeOk = useMemo(() => checkChoice(choice).recipe !== null, [choice]);
  const blocked = !device
    ? 'Starting the GPU in the worker…'
    : device.kind === 'none'
      ? `Live training needs WebGPU, and this browser has no device (${device.line}). Run the command below headless and open its run directory as a replay.`
      : !recipeOk && (!live || ['finished', 'diverged', 'failed'].includes(live.state))
        ? 'Fix the recipe’s marked fields below to train it.'
        : null;
  const needsRun = url.view === 'dashboard' || url.view === 'completions' || url.view === 'loop';
  // The walkthroughs' controls live in ?walk= (state/walk-url.ts), replaced as they move, never pushed.
  const walkUrl = useMemo(() => ({ walk: url.walk, onWalk: (walk: string) => navigate({ walk }) }), [url.walk, navigate]);

  // Compare: the shipped replays load when the view first opens; saved runs load when picked.
  useEffect(() => {
    if (url.view !== 'compare' || shippedCompare !== null) return;
    engine.compareReplays(new URL('replay/manifest.json', document.baseURI).href).then(setShippedCompare, (error) => {
      setShippedCompare([]);
      showBanner({ id: 'compare', tone: 'error', title: 'Compare:', text: message(error) });
    });
  }, [engine, url.view, shippedCompare, showBanner]);
  const compareOptions = useMemo(
    () => [...(bundled.state === 'ready' ? [bundled.run.summary] : []), ...(shippedCompare ?? []).map((v) => v.summary), ...(runs ?? [])],
    [bundled, shippedCompare, runs],
  );
  const compareSelected = url.compare.length > 0 ? url.compare : compareOptions.filter((o) => o.source === 'bundled').map((o) => o.id);
  const loadedForCompare = useMemo(() => {
    const all = new Map(compareViews);
    if (bundled.state === 'ready') all.set('bundled', bundled.run);
    for (const v of shippedCompare ?? []) all.set(v.summary.id, v);
    if (isLive && current) all.set(current.summary.id, current); // the live run's rows as they arrive
    return all;
  }, [compareViews, bundled, shippedCompare, isLive, current]);
  useEffect(() => {
    if (url.view !== 'compare') return;
    for (const id of compareSelected) {
      if (loadedForCompare.has(id) || id.startsWith('bundled')) continue;
      engine.loadRun(id).then(
        (run) => setCompareViews((m) => new Map(m).set(id, run)),
        (error) => storageBanner(message(error)),
      );
    }
  }, [engine, url.view, compareSelected.join(), loadedForCompare, storageBanner]);
  // On the playground, compile the recipe's first kernels before Play (after a pause in editing).
  const idle = !live || ['finished', 'diverged', 'failed'].includes(live.state);
  useEffect(() => {
    if (url.view !== 'playground' || device?.kind !== 'gpu' || !recipeOk || !idle) return;
    const key = JSON.stringify(choice);
    const timer = setTimeout(
      () =>
        void engine.warmUp(choice).then(
          () => setWarm(key),
          () => undefined,
        ),
      300,
    );
    return () => clearTimeout(timer);
  }, [engine, url.view, device, recipeOk, idle, choice]);

  return h(
    'div',
    { class: 'app' },
    h(
      'header',
      { class: 'top' },
      h('h1', null, h('a', { href: '#home', class: 'home-link', title: 'What Horizon is, and where to start' }, 'Horizon')),
      h('span', { class: 'tagline' }, 'agentic RL for small language models, on WebGPU'),
      h('span', { class: 'spacer' }),
      current && (needsRun || isLive) ? h('span', { class: 'run-name', 'data-testid': 'run-name' }, current.summary.name) : null,
      h(RunBadge, { info: liveBadge, scope: 'live run', testId: 'live-badge' }),
      h(
        'span',
        { class: 'device', title: device?.line ?? '', 'data-testid': 'device' },
        device ? (device.kind === 'gpu' ? `GPU: ${device.line}` : 'no WebGPU') : 'GPU: starting…',
      ),
    ),
    h(Banners, { banners, onDismiss: dismiss }),
    h(TabList, { view: url.view, onPick: (v) => navigate({ view: v }, true) }),
    needsRun
      ? h(
          'div',
          { class: 'run-bar' },
          h(RunPicker, { runs: runs ?? [], bundled, current, onPick: (id) => navigate({ run: id }), onDelete: deleteRun }),
          current
            ? h(ShownRunState, { info: shownBadge, live: isLive, resumable, busy: transportBusy, onResume: () => resumeSaved(current.summary.id) })
            : null,
          h(ReplayOpen, { onFiles: openFiles, busy }),
          replayNote
            ? h('p', { class: replayNote.error ? 'error' : 'note', role: replayNote.error ? 'alert' : 'status', 'data-testid': 'replay-note' }, replayNote.text)
            : null,
        )
      : null,
    h(
      'main',
      url.view === 'home'
        ? { id: 'panel-home', 'aria-label': 'Home', tabIndex: -1 }
        : { id: `panel-${url.view}`, role: 'tabpanel', 'aria-labelledby': `tab-${url.view}`, tabIndex: -1 },
      url.view === 'home' ? h(Home, { device, hasRun: current !== null }) : null,
      url.view === 'playground' && resumable && current
        ? h(ShownRunState, { info: shownBadge, live: false, resumable, busy: transportBusy, onResume: () => resumeSaved(current.summary.id) })
        : null,
      needsRun && !current ? h(EmptyRun, { bundled }) : null,
      url.view === 'dashboard' && current
        ? h(Dashboard, {
            records: current.records,
            // Linked views: a point on an RL or evaluation chart opens that iteration's rollouts.
            onPick: (phase, step) => {
              setPicked(`${phase}:${step}`);
              navigate({ view: 'completions' }, true);
            },
          })
        : null,
      url.view === 'completions' && current
        ? h(Completions, {
            key: picked ?? 'all',
            samples: current.samples,
            initialFilter: picked,
            recipe: current.recipe,
            records: current.records,
            compute: (r) => engine.rolloutGae(r),
          })
        : null,
      url.view === 'playground'
        ? h(Playground, {
            choice,
            onChange: (c) => navigate({ recipe: c.recipe, seed: c.seed, sets: c.sets }),
            live,
            liveRecords: isLive ? current.records : null,
            blocked,
            warm: warm === JSON.stringify(choice),
            busy: transportBusy,
            onCommand: command,
          })
        : null,
      url.view === 'loop' && current
        ? h(LoopOverview, {
            records: current.records,
            samples: current.samples,
            recipe: current.recipe,
            live: isLive,
            onLink: (link) => {
              if (link.view === 'completions') setPicked(link.filter);
              navigate({ view: link.view }, true);
            },
          })
        : null,
      url.view === 'compare'
        ? h(Compare, { options: compareOptions, selected: compareSelected, views: loadedForCompare, onSelect: (ids) => navigate({ compare: ids }) })
        : null,
      url.view === 'gae' ? h(LazyGae, { engine }) : null,
      url.view === 'ppo' ||
        url.view === 'groups' ||
        url.view === 'kto' ||
        url.view === 'distill' ||
        url.view === 'monitor' ||
        url.view === 'compaction' ||
        url.view === 'opid' ||
        url.view === 'genac'
        ? h(LazyWalk, { engine, view: url.view, url: walkUrl })
        : null,
      url.view === 'opid-lab' || url.view === 'genac-lab' ? h(LazyMethodLab, { engine, view: url.view, device, recipe: url.recipe, sets: url.sets }) : null,
      url.view === 'antihack-lab' || url.view === 'compaction-lab' ? h(LazyLab, { key: url.view, engine, view: url.view, url: walkUrl }) : null,
    ),
  );
}
