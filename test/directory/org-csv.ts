/**
 * A small directory file for the tests of the directory: a mover (Sales/EMEA until 2026-10-14, then
 * Engineering/Platform/Infra), someone in two teams with a primary one, a service account, and a person in no team.
 */
export const ORG_CSV = `user_email,service_account_name,team,cost_center,manager,location,primary,valid_from,valid_to,title
Ann@Corp.example,,Sales/EMEA,CC-1,bo@corp.example,Berlin,,,2026-10-14,AE
ann@corp.example,,Engineering/Platform/Infra,CC-2,,Berlin,,2026-10-15,,SRE
cy@corp.example,,Engineering/Platform,CC-2,,London,true,,,
cy@corp.example,,On-call,CC-9,,London,false,,,
,ci-bot,Engineering/Platform/Infra,CC-2,,,,,,
di@corp.example,,,CC-3,,Remote,,,,
`;
