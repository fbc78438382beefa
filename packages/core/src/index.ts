// @horizon/core: the platform-free trainer. Knows nothing of Node, Deno or the DOM.

export type {
  AdvantageInputs,
  AdvantageResult,
  Algorithm,
  LossTerm,
  ModelDeclaration,
  ModelRole,
  ModelUpdate,
  OwnTrainingInputs,
  ScoreName,
} from './algorithms/algorithm.ts';
export { type DeclaredModel, declaredModels } from './algorithms/declared-models.ts';
export { type ActorState, renderCriticPrompt } from './algorithms/genac/critic-prompt.ts';
export { type CriticSamples, sampleCritiques } from './algorithms/genac/critic-sampling.ts';
export { GENERATIVE_CRITIC_NAME, genacPhase, WIN_RATE_STATE } from './algorithms/genac/critic-training.ts';
export { criticTokenizer, criticVocabulary } from './algorithms/genac/critic-vocabulary.ts';
export { GENERATIVE_CRITIC } from './algorithms/genac/genac.ts';
export { type Critique, formatCritique, type MalformedReason, parseCritique } from './algorithms/genac/value-digit.ts';
export { ALGORITHM_BY_NAME, declaresRole } from './algorithms/index.ts';
// OPID's critical points, execution log, routing and skill pass (criticalPoints … skillLogprobs), for the web UI's OPID lab
// (packages/web-ui/src/engine/opid-lab.ts) to list a rollout's critical steps and rescore it under another routing.
export { criticalPoints } from './algorithms/opid/critical-points.ts';
export { rolloutLog } from './algorithms/opid/execution-log.ts';
export { routeRollout } from './algorithms/opid/opid.ts';
export { type PreCheckInputs, type PreCheckResult, skillDeltaOnDemonstrations } from './algorithms/opid/pre-check.ts';
export { skillLogprobs } from './algorithms/opid/skill-delta.ts';
export { parseSkills, type Skills } from './algorithms/opid/skill-parser.ts';
export { type SpanLog, spanLog } from './algorithms/span-log.ts';
export { type OfflineSpanMethod, OfflineSpanTrainer, SOURCE_SPAN_KTO } from './algorithms/span-offline.ts';
export {
  type AdamState,
  CHECKPOINT_FORMAT,
  type Checkpoint,
  CheckpointError,
  type CheckpointFileRead,
  type CheckpointModels,
  type CheckpointReader,
  type CheckpointStateFile,
  checkVocabulary,
  decodeCheckpoint,
  encodeCheckpoint,
  MAX_STATE_BYTES,
  MODEL_NAME,
  type ModelState,
  memoryReader,
  type RngState,
  STATE_FILE,
  sealStateFile,
  sha256Hex,
  TRAINER_STATE_FILE,
} from './checkpoint/checkpoint.ts';
export {
  DTYPE_BYTES,
  decodeSafetensors,
  encodeSafetensors,
  type HostTensorData,
  MAX_HEADER_BYTES,
  readF32,
  SAFETENSORS_DTYPES,
  type SafetensorsDType,
  SafetensorsError,
  type SafetensorsErrorKind,
  type SafetensorsFile,
  type StoredTensor,
  type TensorToWrite,
  tensorValues,
} from './checkpoint/safetensors.ts';
export { type CheckpointStore, checkResumeRecipe, loadCheckpoint, MemoryCheckpointStore, RESUME_SAFE_FIELDS, saveCheckpoint } from './checkpoint/store.ts';
export {
  ADDITION_MAX_DIGITS,
  ADDITION_VOCABULARY,
  AdditionEnv,
  type AdditionProblem,
  additionProblem,
  additionProblemCount,
  additionSftExample,
  type DigitRange,
  distinctAdditionProblems,
  makeAdditionProblem,
} from './envs/addition.ts';
export { branchOf, isBranch, type ParentLink, ROOT_BRANCH } from './envs/branches.ts';
export { DELEGATE_TOOL, delegateTool, SUB_AGENT_HEADER, type SubAgentLimits, subAgentEnvironment } from './envs/delegate.ts';
export { dialogSftExample } from './envs/dialog-feedback/demonstrations.ts';
export { DIALOG_VOCABULARY, type DialogConfig, DialogFeedbackEnv, type DialogTurnRecord } from './envs/dialog-feedback/env.ts';
export { type FeedbackMix, feedbackMix, sampleDialog } from './envs/dialog-feedback/feedback-mix.ts';
export { fitFeedbackRates } from './envs/dialog-feedback/feedback-rates.ts';
export type { FeedbackRates } from './envs/dialog-feedback/scripted-user.ts';
export {
  type ActionEnding,
  type Environment,
  type EnvText,
  type EnvTextPart,
  type EpisodeStart,
  type Info,
  type JsonValue,
  type MaybePromise,
  multiTurnSftExample,
  renderEnvText,
  type SftExample,
  type SftTurn,
  type StepOutcome,
  type ToolCallOutcome,
  type Vocabulary,
} from './envs/environment.ts';
export {
  type BatchSampler,
  collectRollouts,
  type EpisodeRequest,
  encodeEnvText,
  type Generation,
  type RolloutLimits,
  type RowKey,
  type TokenCodec,
} from './envs/episode.ts';
export { hackMetrics } from './envs/hack-attempts.ts';
export { HIDDEN_OUTPUT_LIMIT, HiddenTestFsEnv, type HiddenTestFsEnvOptions, shTool } from './envs/hidden-test-fs/env.ts';
export { type CallRecord, callsInfo, createSandbox, type HiddenSandbox, hackInfo, protectedAccesses } from './envs/hidden-test-fs/episode-sandbox.ts';
export { HiddenTestVerifier, RESTORED_PATHS } from './envs/hidden-test-fs/grading.ts';
export { type Case, distinctHiddenProblems, FAMILIES, type Family, type HiddenProblem, hiddenProblem, problemCount } from './envs/hidden-test-fs/problems.ts';
export { type DemoPlan, demonstrationTurns, honestDemonstration, inferSolution, shAction } from './envs/hidden-test-fs/solver.ts';
export { HIDDEN_TEST_FS_DEMO_TOKENS, HIDDEN_TEST_FS_VOCABULARY, type HiddenTestFsConfig } from './envs/hidden-test-fs/task.ts';
export { MixedEnv, SKILL_TAGS, type SkillTag } from './envs/mixed.ts';
export { ROLLOUT_STATUSES, type RolloutStatus, STATUS_RULES, type StatusRule } from './envs/rollout-status.ts';
export {
  type ActionKind,
  actionTokenCount,
  type ContextOptions,
  checkSampleMasks,
  ENVIRONMENT_KINDS,
  emptyToolCallCounts,
  failedSample,
  failureStatus,
  KIND_CODE,
  maskOfKinds,
  type ObservationKind,
  type PackedBatch,
  packSamples,
  type RolloutFailure,
  type Sample,
  SampleBuilder,
  type StepReward,
  TOKEN_KINDS,
  type TokenKind,
  type ToolCallCounts,
  TRAINABLE_KINDS,
  type Turn,
  tokenRewards,
} from './envs/sample.ts';
export { EVAL_SEED_SALT, episodeSeed, mixSeed, SEED_STREAM, type SeedStream } from './envs/seeds.ts';
export {
  ARITHMETIC_VOCABULARY,
  makeSubtractionProblem,
  SubtractionEnv,
  type SubtractionProblem,
  subtractionProblem,
  subtractionProblemCount,
} from './envs/subtraction.ts';
export {
  type AdditionTaskConfig,
  createTask,
  type EvalSizes,
  type EvalSplit,
  sampleSkill,
  TASK_ENVS,
  type Task,
  type TaskConfig,
  type TaskEnv,
  type TaskIssue,
  type TaskLimits,
  taskChecks,
  taskLimits,
  taskSkills,
  taskVocabulary,
} from './envs/tasks.ts';
export { defineTool, type EpisodeState, type Tool, type ToolContext, type ToolOutput, type ToolParameters, type ToolSpec, toolSpec } from './envs/tool.ts';
export {
  extractToolCall,
  failedCall,
  type KeepSide,
  type OutputLimit,
  type ParsedToolCall,
  parseToolCall,
  runToolCall,
  TOOL_CALL_CLOSE,
  TOOL_CALL_OPEN,
  type ToolCallResult,
  toolCallMetrics,
  toolResultText,
  toolUsage,
  truncateText,
} from './envs/tool-call.ts';
export {
  DEFAULT_OUTPUT_LIMIT,
  DEFAULT_TOOL_TIMEOUT_MS,
  ToolEnvironment,
  type ToolEnvironmentOptions,
  type ToolTask,
} from './envs/tool-env.ts';
export {
  groupSegments,
  isSingleTurn,
  segmentOfRecord,
  segmentOfSample,
  statusLabel,
  type Trace,
  type TraceBranch,
  type TraceSegment,
  type TraceSegmentInput,
  type TraceSpan,
  type TraceToolCall,
  toolCallOf,
  traceOf,
} from './envs/trace-view.ts';
export { UI_DSL_JUDGES, UiDslEnv, type UiDslEnvOptions, type UiDslJudge } from './envs/ui-dsl/env.ts';
export { type AgreementOptions, type JudgeAgreement, judgeAgreement } from './envs/ui-dsl/judge-agreement.ts';
export { casePlans, exhaustivePlan, JUDGE_CASES, type JudgeCase } from './envs/ui-dsl/judge-cases.ts';
export {
  InteractiveJudgeVerifier,
  judgeInteractively,
  judgeStatically,
  judgeStochastically,
  StaticJudgeVerifier,
  specOfInfo,
  type UiJudgement,
} from './envs/ui-dsl/judges.ts';
export { formatSyntaxError, parseProgram } from './envs/ui-dsl/parse.ts';
export { expectedKinds, expectedText, planFor } from './envs/ui-dsl/planner.ts';
export {
  type Action,
  type ActionPlan,
  COUNTER_PATTERN,
  describeAction,
  type ElementState,
  type ErrorPhase,
  planActions,
  type RecordedError,
  type RenderServer,
  type RenderTrace,
  RUNTIME_MESSAGES,
  type StateChange,
  type StepRecord,
  stateChanges,
} from './envs/ui-dsl/render.ts';
export { SimulatorRenderServer, simulate } from './envs/ui-dsl/simulator.ts';
export {
  distinctUiSpecs,
  everyUiSpec,
  honestProgram,
  specCount,
  specKey,
  specPrompt,
  UI_SPEC_KINDS,
  type UiSpec,
  type UiSpecKind,
  type UiSpecRange,
  uiSpec,
} from './envs/ui-dsl/spec.ts';
export {
  type DslParseResult,
  type DslSyntaxError,
  type Effect,
  ELEMENT_LETTERS,
  type ElementDecl,
  type ElementKind,
  elementDecls,
  type HandlerDecl,
  handlerDecls,
  ID_PATTERN,
  MAX_ELEMENTS,
  MAX_PROGRAM_CHARS,
  type Program,
  type Statement,
} from './envs/ui-dsl/syntax.ts';
export { UI_DSL_PROGRAM_BUDGET, UI_DSL_VOCABULARY, type UiDslConfig, uiDslChecks, uiDslLimits, uiDslSftExample, uiDslTask } from './envs/ui-dsl/task.ts';
export { SUCCESS_CRITERIA, type UiCriterion, uiRubric } from './envs/ui-dsl/ui-rubric.ts';
export { AnswerVerifier, type Trajectory, type Verification, type Verifier } from './envs/verifier.ts';
export { ECHO_CHARS, echo, InputError, type InputErrorKind, isInputError, jsonDepthExceeds, showValue } from './errors.ts';
export {
  isMetricName,
  METRIC_NAMES,
  METRIC_NAMESPACES,
  METRICS,
  type MetricDefinition,
  type MetricName,
  type MetricUnit,
  metricDefinition,
} from './metrics/glossary.ts';
export {
  checkMetricsRecord,
  formatHeaderLine,
  formatMetricsLine,
  formatSampleLine,
  globalStep,
  METRICS_FORMAT,
  type MetricsHeader,
  type MetricsLog,
  type MetricsRecord,
  PHASES,
  type Phase,
  parseMetricsLog,
  type SampleRecord,
  sampleRecord,
} from './metrics/jsonl.ts';
export { MemoryMetricsLogger, type MetricsLogger } from './metrics/logger.ts';
export { type GptConfig, headDim, LAYER_NORM_EPS, type ModelHead, validateGptConfig } from './model/config.ts';
export { type GeneratedRow, Generator, type SamplingOptions } from './model/generate.ts';
export { Gpt, type GptActivations, type LayerTensors, type ModelTensors } from './model/gpt.ts';
export { initParameters } from './model/init.ts';
export { AdamW, type OptimizerOptions } from './model/optimizer.ts';
export {
  INIT_STD,
  type InitKind,
  PARAMETER_ALIGNMENT,
  type ParameterEntry,
  type ParameterLayout,
  type ParameterSpec,
  parameterEntry,
  parameterLayout,
  parameterSpecs,
} from './model/parameters.ts';
export { type AdamWHyperparameters, referenceAdamW, validateAdamW, weightDecayMask } from './model/reference/adamw.ts';
export {
  compareToGolden,
  FLOAT64_TOLERANCES,
  GOLDEN_FORMAT,
  GOLDEN_VERSION,
  type GoldenActual,
  type GoldenCase,
  type GoldenComparison,
  type GoldenFixture,
  type GoldenTolerances,
  parseGoldenFixture,
  type TensorError,
} from './model/reference/golden.ts';
export {
  type ReferenceCache,
  type ReferenceGradients,
  type ReferenceLayerCache,
  type ReferenceLossOutput,
  type ReferenceOutput,
  referenceBackward,
  referenceForward,
  referenceLoss,
  referenceModelBackward,
  type TokenIds,
} from './model/reference/gpt.ts';
// The online anti-hack monitor (monitor/, docs/monitor.md): rule stage, judge stage, fabricated output.
export { type CommandFact, commandFacts, type LineFacts, type WordFact } from './monitor/command-facts.ts';
export { fabricatedCall } from './monitor/fabricate.ts';
export { type Judge, type JudgeRequest, type JudgeVerdict, ShadowJudge } from './monitor/judge.ts';
export {
  CALL_GROUPS,
  type CallGroup,
  type CallLabel,
  HACK_CHANNELS,
  type HackChannel,
  HONEST_EPISODES,
  type LabelledCall,
  type LabelledEpisode,
  type LabelledSet,
  labelledSet,
} from './monitor/labelled-calls.ts';
export { type ScoredCall, scoreLabelledSet } from './monitor/labelled-score.ts';
export { type EpisodeSources, labelledWorld } from './monitor/labelled-world.ts';
export { monitorMetrics, recordedDecisions } from './monitor/metrics.ts';
export {
  CallMonitor,
  type CallMonitorOptions,
  DEFAULT_RULES,
  MONITOR_MODES,
  MONITOR_OFF,
  type MonitorConfig,
  type MonitorDecision,
  type MonitorMode,
} from './monitor/monitor.ts';
export { monitorTrajectory, type OfflineDecision, type RecordedCall, recordedCalls } from './monitor/offline.ts';
export { PATH_RULES } from './monitor/path-rules.ts';
export { type Counts, counts, type PrecisionReport, precisionReport, type StageCounts } from './monitor/precision.ts';
export type { MonitorRule, RuleContext, RuleFlag, RuleResult } from './monitor/rule.ts';
export { normaliseUrl, SOURCE_RULES } from './monitor/source-rules.ts';
export { type MonitorWorld, ruleContext, type ShellEffects } from './monitor/world.ts';
export { criticSizes, type FieldIssue, modelConfigs, recipeChecks } from './recipe/checks.ts';
export {
  describeRange,
  type FieldType,
  formatFieldValue,
  RECIPE_FIELDS,
  RECIPE_JSON_SCHEMA,
  RECIPE_SECTIONS,
  type RecipeField,
  type RecipeSection,
  recipeField,
  recipeFieldsHelp,
} from './recipe/fields.ts';
export {
  checkRecipeFitsDevice,
  type FitLimits,
  type FitOptions,
  MAX_CHECKPOINT_FILE_BYTES,
  type RecipeFootprint,
  recipeVocabSize,
  recipeVocabulary,
} from './recipe/fits.ts';
export { methodFieldIssues } from './recipe/method-field-check.ts';
export { METHOD_FIELDS, methodFieldsSummary, methodsReading } from './recipe/method-fields.ts';
export { DEFAULT_PRESET, isPresetName, PRESET_NAMES, PRESETS, type Preset, type PresetName } from './recipe/presets.ts';
export {
  defaultRecipe,
  parseSetOption,
  RecipeError,
  type RecipeIssue,
  type RecipeRequest,
  type RecipeSourceMap,
  type ResolvedRecipe,
  resolveRecipe,
  unknownRecipe,
  validateRecipe,
} from './recipe/resolve.ts';
export {
  ALGORITHMS,
  type AlgorithmName,
  CRITIC_INITS,
  DISTILL_MODES,
  KL_ESTIMATORS,
  KL_PLACEMENTS,
  LOSS_AGGREGATIONS,
  type Recipe,
  type RecipeInput,
  RecipeSchema,
  ROUTING_MODES,
  type RoutingMode,
} from './recipe/schema.ts';
export { formatRecipeTable, type RecipeDifference, recipeDifferences, recipeValue } from './recipe/table.ts';
export { type Access, type AccessKind, AccessLog, RecordingFs } from './sandbox/access-log.ts';
export { type CompiledGlob, compileGlob, escapeGlob, type GlobMatchOptions, hasGlobChars, matchGlob, type WorkCounter } from './sandbox/glob.ts';
export { compileLinePattern, type LinePattern, MAX_PROGRAM_SIZE, type PatternSyntax } from './sandbox/line-pattern.ts';
export { isWithin, resolvePath } from './sandbox/paths.ts';
// The QuickJS code runner (sandbox/quickjs/): agent-written JavaScript run against test inputs under limits.
export {
  type CaseOutcome,
  CODE_STATUSES,
  type CodeEntry,
  type CodeLimits,
  type CodeRequest,
  type CodeResult,
  type CodeRunner,
  type CodeStatus,
  checkCodeRequest,
  MIN_MEMORY_BYTES,
} from './sandbox/quickjs/code-runner.ts';
export { HARD_WALL_FACTOR, QuickJsCodeRunner, type QuickJsLiveCounts } from './sandbox/quickjs/quickjs-code-runner.ts';
export { FIXED_TIME_MS } from './sandbox/quickjs/vm-prelude.ts';
export { BUILTIN_COMMANDS, shellRegistry } from './sandbox/shell/builtins.ts';
export { curlCommand } from './sandbox/shell/commands/curl.ts';
export { type GitCommit, type GitHistory, gitCommand } from './sandbox/shell/commands/git.ts';
export { DEFAULT_SHELL_LIMITS, OutputSink, type ShellLimits, WorkBudget } from './sandbox/shell/limits.ts';
export { type ParseResult, parseCommandLine, type Script } from './sandbox/shell/parser.ts';
export { type CommandContext, type CommandOutcome, CommandRegistry, type ShellCommand } from './sandbox/shell/registry.ts';
export { Shell, type ShellCallResult, type ShellOptions } from './sandbox/shell/shell.ts';
export {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_OVERLAY_BYTES,
  FS_ERROR_TEXT,
  type FsChange,
  type FsEntry,
  type FsErrorCode,
  type FsResult,
  type FsStat,
  VirtualFs,
  type VirtualFsOptions,
} from './sandbox/virtual-fs.ts';
export {
  BatchScheduler,
  type ChunkSampler,
  type ChunkVerdict,
  type SchedulerSettings,
  type SequenceEnd,
  type SequenceSpec,
} from './serve/batch-scheduler.ts';
export {
  type ChatFunction,
  type ChatMessage,
  type ChatToolCall,
  type ParsedCompletion,
  parseCompletion,
  renderChat,
  TemplateError,
  type TemplateVocabulary,
  toolCallBody,
} from './serve/chat-template.ts';
export { type CachedSampler, PolicyGate } from './serve/policy-gate.ts';
export { type RecordedTurn, type RewardedSession, SessionError, SessionRecorder, type TurnPlace } from './serve/session-recorder.ts';
export { type TokenLogprob, TopLogprobScorer, type TopLogprobSource, topOfRow } from './serve/top-logprobs.ts';
export {
  CharTokenizer,
  type CharTokenizerOptions,
  type DecodeOptions,
  type EncodeOptions,
  PRINTABLE_ASCII,
  SPECIAL_TOKENS,
  type SpecialToken,
  UNK_TEXT,
  UNK_TOKEN,
} from './tokenizer/char-tokenizer.ts';
export { BlackBoxTraining, type BlackBoxUpdate } from './train/black-box.ts';
export { collectAndScore, type ScoredRollouts } from './train/collect-and-score.ts';
export { checkFiniteWeights, DivergedError, divergence, isDivergedError } from './train/divergence.ts';
export { type EvalResult, evaluate, isSuccess } from './train/evaluate.ts';
export { samplesOfSessions } from './train/external-trajectories.ts';
export { cutAction, GpuSampler } from './train/gpu-sampler.ts';
export {
  type HiddenTestFsEpisode,
  type HiddenTestFsEpisodesRequest,
  type HiddenTestFsEpisodesResult,
  runHiddenTestFsEpisodes,
} from './train/hidden-test-fs-episodes.ts';
export { type LabelledExample, labelledBatch, labelledFileOf, parseLabelledFile } from './train/labelled-examples.ts';
export { type MismatchedRows, mismatchedRows } from './train/mismatched-rows.ts';
export { type RlContext, type RlModels, STREAM } from './train/rl-context.ts';
export { rlIteration } from './train/rl-iteration.ts';
export { rolloutLimits } from './train/rollout-limits.ts';
export { MISMATCH_THRESHOLD, rolloutMismatch, truncatedIsAdvantages } from './train/rollout-mismatch.ts';
export { type TrainingRows, toTrainingRows, trainingLength } from './train/rows.ts';
export { Scorer, type Scores } from './train/scoring.ts';
export { type SftBatch, SftStepper, sftBatch } from './train/sft.ts';
export { shuffled } from './train/shuffled.ts';
export { checkTeacher, loadTeachers, parseRoute, type TeacherSource, Teachers, type TeacherWeights, teacherRuns } from './train/teachers.ts';
export { checkpointPhase, type MetricsAt, Trainer, type TrainerHooks } from './train/trainer.ts';
export { TrainerState, type TrainerStatePart } from './train/trainer-state.ts';
export { type Minibatch, type StepMetrics, type StepOptions, UpdateSteps } from './train/update-steps.ts';
export { minibatchBounds, type RolloutSelection, type SelectionOptions, selectTrainable } from './train/valid-rollouts.ts';
export { closestMatch, didYouMean, editDistance } from './util/suggest.ts';
export { kendallTau } from './verification/kendall.ts';
export {
  type Criterion,
  checkRubric,
  DEFAULT_CATEGORY_WEIGHTS,
  type Judging,
  QWEN_CATEGORY_PERCENT,
  RUBRIC_CATEGORIES,
  type Rubric,
  type RubricCategory,
  rubricScore,
  WEIGHT_SUM_TOLERANCE,
  weightByCategory,
} from './verification/rubric.ts';
export { type KeywordCriterion, keywordChoice, keywordHits, sampledStaticJudging, staticJudging } from './verification/static-judge.ts';
