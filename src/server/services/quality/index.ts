export { score, MATCH_THRESHOLD, type Score, type ClassScore, type Match, type ScoreOptions } from './score';
export { iou, oks, COCO_PERSON_POINTS, COCO_PERSON_SIGMAS, DEFAULT_SIGMA, DEFAULT_OKS_AREA } from '../../../contract/similarity';
export { groundTruthOf, groundTruthTurn, isGroundTruthTurn, setGroundTruth, submitAttempt } from './ground-truth';
