// Kendall's rank correlation τ-b between two scorings of the same items: (concordant − discordant)
// pairs over the geometric mean of the pairs each scoring leaves untied (Kendall 1945, the tie
// correction). τ-b rather than τ-a because rubric scores tie often — many programs score the same —
// and τ-a would count those ties as disagreement. O(n²), which suits the tens of judge cases here.

/** τ-b of two equally long score lists, in [−1, 1]; throws when either has no untied pair (τ undefined). */
export function kendallTau(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError(`kendallTau: the scorings rank different numbers of items (${a.length} and ${b.length}).`);
  let concordant = 0;
  let discordant = 0;
  let untiedA = 0;
  let untiedB = 0;
  for (let i = 0; i < a.length; i++)
    for (let j = i + 1; j < a.length; j++) {
      const da = Math.sign(a[i] - a[j]);
      const db = Math.sign(b[i] - b[j]);
      if (da !== 0) untiedA++;
      if (db !== 0) untiedB++;
      if (da !== 0 && db !== 0) {
        if (da === db) concordant++;
        else discordant++;
      }
    }
  if (untiedA === 0 || untiedB === 0) throw new RangeError('kendallTau: one scoring gives every item the same score, so τ is undefined.');
  return (concordant - discordant) / Math.sqrt(untiedA * untiedB);
}
