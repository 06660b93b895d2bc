/** A ratio against its goal, saying plainly whether the goal is met: `1.39x, goal <= 1.2x: not met`. */
export function goalLine(ratio: number, sense: '<=' | '>=', goal: number): string {
  const met = sense === '<=' ? ratio <= goal : ratio >= goal;
  return `${ratio.toFixed(2)}x, goal ${sense} ${goal}x: ${met ? 'met' : 'not met'}`;
}
